# Run at every build (cuda/CMakeLists.txt, target tilelab_git_hash): writes OUT, a header defining
# TILELAB_GIT_HASH as the commit the tree is at ("-dirty" when tracked files differ from it), and
# touches it only when that changes, so only the file that prints it recompiles. A hash taken at
# configure time went stale with every commit built without reconfiguring.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY "${SRC}"
                OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR hash STREQUAL "")
  set(hash "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(hash "${hash}-dirty")
  endif()
endif()
file(WRITE "${OUT}.tmp" "#define TILELAB_GIT_HASH \"${hash}\"\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
