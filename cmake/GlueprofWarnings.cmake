# glueprof_target_defaults(TARGET): warnings and include root shared by every glueprof target.
function(glueprof_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(GLUEPROF_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
