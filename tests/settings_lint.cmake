# The config is resolved into typed settings in one place (frontend/config/resolve.cpp): the
# engine's cluster and optimizers never see a Config, and neither the engine nor the planner
# compares an enum key's string. Fails naming the file and the line that does.
# Usage: cmake -DSRC=<source dir> -P settings_lint.cmake
set(enum_keys "type|lr_schedule|loss_scaling_mode|outfeed_mode|master_weights|precision|state_dtype|reduction_method|recomputation_mode|gradient_accumulation_dtype|gradient_accumulation_order|selection_order|accumulate_outfeed_dtype")
set(failures "")
file(GLOB_RECURSE sources "${SRC}/engine/*.cpp" "${SRC}/engine/*.hpp" "${SRC}/planner/*.cpp" "${SRC}/planner/*.hpp"
     "${SRC}/core/optim/*.cpp" "${SRC}/core/optim/*.hpp")
foreach(f IN LISTS sources)
  file(STRINGS "${f}" hits REGEX "\\.(${enum_keys}) *[!=]= *\"")
  foreach(h IN LISTS hits)
    string(APPEND failures "${f}: compares a config string: ${h}\n")
  endforeach()
endforeach()
file(GLOB_RECURSE typed "${SRC}/engine/cluster/*" "${SRC}/core/optim/*")
foreach(f IN LISTS typed)
  file(STRINGS "${f}" hits REGEX "#include \"iputrain/config(_loader)?.hpp\"")
  foreach(h IN LISTS hits)
    string(APPEND failures "${f}: includes the raw config; take Settings instead\n")
  endforeach()
endforeach()
# Neither the planner nor the engine includes the config (iputrain/config.hpp, config_loader.hpp or
# frontend/config/): what they read is in Settings, resolved once, with the keys' locations for the
# rules checked later. The public API's entry points that take a Config are in api/, above them (issue 34).
file(GLOB_RECURSE stages RELATIVE "${SRC}" "${SRC}/planner/*.cpp" "${SRC}/planner/*.hpp" "${SRC}/engine/*.cpp"
     "${SRC}/engine/*.hpp")
foreach(f IN LISTS stages)
  file(STRINGS "${SRC}/${f}" hits REGEX "#include \"(iputrain/config(_loader)?\\.hpp|frontend/config/)")
  foreach(h IN LISTS hits)
    string(APPEND failures "${f}: includes the config (${h}); read Settings (iputrain/settings.hpp) instead\n")
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
