#include "detail/staged_copy_label.h"

namespace devcheck::detail {
namespace {
thread_local const char* tls_label = nullptr;
}  // namespace

StagingScope::StagingScope(const char* who) noexcept : previous_(tls_label) { tls_label = who; }
StagingScope::~StagingScope() { tls_label = previous_; }

const char* staging_label() noexcept { return tls_label; }

}  // namespace devcheck::detail
