# `make deb`: one Debian package of the installed tree, by CPack's DEB
# generator (nothing hand-written under debian/). Its dependencies are
# computed by dpkg-shlibdeps from the programs and libraries it holds, so
# they name the LibTorch, fmt and C++ runtime packages this build linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME devcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the devcheck developers")
set(CPACK_PACKAGE_CONTACT "devcheck developers <dev@devcheck.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The package ships shared libraries: a shlibs file for packages built
# against them, and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# binutils: addr2line names the source lines of a C++ program's ops;
# dataset-fashion-mnist: `devcheck train`; libtorch-dev: building against
# the headers and CMake package; python3-torch: the Python programs that
# `devcheck run` watches.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "binutils, dataset-fashion-mnist")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libtorch-dev, python3-torch")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "finds and fixes PyTorch device errors (LibTorch toolkit and CLI)")
# The extended description (the summary above is its first line); CPack
# indents each line and writes an empty one as Debian's " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"devcheck names the tensor, module parameter or checkpoint entry on the
wrong device before an operation fails, and makes device placement a
decision a program takes once.

The command line inspects and remaps torch.save and TorchScript files
without running pickle code, runs any LibTorch or PyTorch program under a
device sanitizer (mismatches with where the stray tensor was made, hidden
host-device copies and syncs), launches local ranks, and trains the
Fashion-MNIST classifier. The C++ libraries (CMake package devcheck) add
device policies, scoped default devices, checks, moves, a fake second
device for CPU-only tests, and training parts LibTorch lacks.")
# Policy's ldconfig trigger for the libraries in /usr/lib (CPack's own
# postinst calls ldconfig directly, which lintian counts as lacking one).
file(WRITE ${PROJECT_BINARY_DIR}/debian/triggers "activate-noawait ldconfig\n")
# Python writes __pycache__ beside devcheck_fake.py when it is imported;
# removing the package removes that too, as py3clean does for Python packages.
file(WRITE ${PROJECT_BINARY_DIR}/debian/prerm
"#!/bin/sh
set -e
if [ \"$1\" = remove ] || [ \"$1\" = upgrade ] || [ \"$1\" = deconfigure ]; then
  [ ! -d /usr/share/devcheck ] || find /usr/share/devcheck -depth -type d -name __pycache__ -exec rm -rf {} +
fi
")
file(CHMOD ${PROJECT_BINARY_DIR}/debian/prerm
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/triggers
                                       ${PROJECT_BINARY_DIR}/debian/prerm)
include(CPack)
