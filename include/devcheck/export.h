#pragma once

/// Marks devcheck's public API. Every devcheck library is built with hidden
/// symbols (`-fvisibility=hidden`): only what carries DEVCHECK_API (classes,
/// functions, variables) is in a library's dynamic symbol table. Internals,
/// `detail::` among them, stay inside the library that defines them
/// (docs/architecture.md, "Symbols").
#if defined(__GNUC__) || defined(__clang__)
#define DEVCHECK_API [[gnu::visibility("default")]]
#else
#define DEVCHECK_API
#endif
