# The seed's sharding tutorial (examples/sharding): predict, without weights, prints [4, 14] for the
# tutorial's inputs, on two IPUs.
# Usage: cmake -DBIN=iputrain -DDIR=examples/sharding -P run_sharding_example.cmake
execute_process(COMMAND ${BIN} predict ${DIR}/sharding.ipu ${DIR}/sharding.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "iputrain predict exited with ${rc}")
endif()
if(NOT out MATCHES "sample 0: result = \\[4, 14\\]")
  message(FATAL_ERROR "expected `sample 0: result = [4, 14]`")
endif()
execute_process(COMMAND ${BIN} eval ${DIR}/sharding.ipu ${DIR}/sharding.toml
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "ran on 2 IPUs")
  message(FATAL_ERROR "eval did not run on the plan's 2 IPUs")
endif()
