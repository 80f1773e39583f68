# The suites' own code (sources under test/) is compiled at -O1, whatever the
# build type: Catch2's assertion templates make a test file cost 6-9 s at -O3
# and about half that at -O1, and test code makes up nine tenths of a build's
# compile time (which is most of README's test command). What the tests check
# keeps the build's level: the engines, the provider and every provider or
# backend source a test target compiles in itself (the constant-time checks
# trace sm4_modes.cpp; the PHE register checks run phe.cpp). The fuzz targets
# keep it too: their speed is executions per second.
#
# hwaccel_optimise_test_code_at(LEVEL DIR): every target defined in DIR and
# its subdirectories; call it once all of them are defined.
function(hwaccel_optimise_test_code_at level dir)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    hwaccel_optimise_test_code_at(${level} ${sub})
  endforeach()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(target_dir ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
      if(source MATCHES "^\\$<")  # $<TARGET_OBJECTS:...> and the like
        continue()
      endif()
      get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${target_dir}")
      string(FIND "${path}" "${PROJECT_SOURCE_DIR}/test/" at)
      string(FIND "${path}" "${PROJECT_SOURCE_DIR}/test/fuzz/" at_fuzz)
      # A file that names its own level keeps it (Catch's implementation, -O0).
      get_source_file_property(own "${path}" TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
      if(at EQUAL 0 AND NOT at_fuzz EQUAL 0 AND NOT own MATCHES "(^|;)-O")
        set_property(SOURCE "${path}" TARGET_DIRECTORY ${target}
          APPEND PROPERTY COMPILE_OPTIONS ${level})
      endif()
    endforeach()
  endforeach()
endfunction()
