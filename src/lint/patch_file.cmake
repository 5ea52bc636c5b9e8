# devcheck_patch_file(SOURCE TARGET RELEASE PATCH_FILE PART...): writes TARGET,
# a copy of SOURCE in which each PART's text ${PART}_anchor (a variable of the
# caller) is replaced by ${PART}_change. The configure step fails if an anchor
# is not in SOURCE exactly once: another release of the file must be looked at
# again, not patched blindly. TARGET is rewritten only when it changes, so a
# reconfigure does not rebuild what compiles it; a change to SOURCE or to
# PATCH_FILE (the file that defines the parts) reconfigures.
# Used by grammar_patch.cmake and runtime_patch.cmake.
function(devcheck_patch_file source target release patch_file)
  file(READ ${source} text)
  foreach(part IN LISTS ARGN)
    if(NOT DEFINED ${part}_anchor OR NOT DEFINED ${part}_change)
      message(FATAL_ERROR "${patch_file}: no ${part}_anchor or ${part}_change")
    endif()
    string(FIND "${text}" "${${part}_anchor}" first)
    string(FIND "${text}" "${${part}_anchor}" last REVERSE)
    if(first EQUAL -1 OR NOT first EQUAL last)
      message(FATAL_ERROR "${source} is not ${release}'s: the text ${patch_file} changes "
        "(${part}) is not in it exactly once")
    endif()
    string(REPLACE "${${part}_anchor}" "${${part}_change}" text "${text}")
  endforeach()
  file(WRITE ${target}.new "${text}")
  configure_file(${target}.new ${target} COPYONLY)
  file(REMOVE ${target}.new)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source} ${patch_file})
endfunction()
