# The Python for the tests and the bindings needs numpy: the first python3
# on PATH that imports it, so an interpreter without it (a pyenv shim) does
# not shadow the system one. -DPython3_EXECUTABLE=... overrides.
if(NOT Python3_EXECUTABLE)
  function(webnn_python_has_numpy result candidate)
    execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT rc EQUAL 0)
      set(${result} FALSE PARENT_SCOPE)
    endif()
  endfunction()
  find_program(Python3_EXECUTABLE NAMES python3 VALIDATOR webnn_python_has_numpy
               DOC "Python 3 with numpy, for the tests and the Python bindings")
endif()
