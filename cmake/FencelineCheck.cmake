# fenceline_check(<target> [FAIL_ON_FINDINGS] [ARCH sm_XX] [CHECKS globs]
#                 [CONFIG file] [OPTIONS args...])
#
# Checks every CUDA source (.cu) of <target> with `fenceline check` as part of
# the build: one build step per source (so Ninja, make -j and distributed
# build tools run them in parallel), collected in the target
# <target>_fenceline, which is part of ALL. Each step passes the target's
# include directories and compile definitions (with those of the libraries
# it links) to nvcc, and the architecture: ARCH, else the first entry of the
# target's CUDA_ARCHITECTURES (90a -> sm_90a), else fenceline's default.
# A step re-runs when its source or the checker changes.
#
# Findings are printed as compiler warnings. With FAIL_ON_FINDINGS, a finding
# (at or above the configured fail-on level) fails the step and so the build;
# without it they never do. Input errors (a source nvcc cannot compile) fail
# the build either way. CHECKS is passed as --checks, CONFIG as --config;
# OPTIONS go to `fenceline check` as they are (e.g. --warnings-as-errors=*).
# The .fenceline.toml found upward from each source applies as usual.
function(fenceline_check target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "FAIL_ON_FINDINGS" "ARCH;CHECKS;CONFIG" "OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fenceline_check: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "fenceline_check: '${target}' is not a target")
  endif()
  if(NOT TARGET fenceline::fenceline)
    message(FATAL_ERROR "fenceline_check: fenceline::fenceline is missing (call find_package(fenceline) first)")
  endif()

  set(command_args check --color=never)
  if(NOT arg_FAIL_ON_FINDINGS)
    list(APPEND command_args --fail-on=never)
  endif()
  set(arch "${arg_ARCH}")
  if(NOT arch)
    get_target_property(archs ${target} CUDA_ARCHITECTURES)
    if(archs AND NOT archs STREQUAL "OFF")
      list(GET archs 0 first)
      string(REGEX REPLACE "-(real|virtual)$" "" first "${first}")
      if(first MATCHES "^[0-9]+[a-z]?$")
        set(arch "sm_${first}")
      endif()
    endif()
  endif()
  if(arch)
    list(APPEND command_args --arch=${arch})
  endif()
  if(arg_CHECKS)
    list(APPEND command_args "--checks=${arg_CHECKS}")
  endif()
  if(arg_CONFIG)
    get_filename_component(config "${arg_CONFIG}" ABSOLUTE)
    list(APPEND command_args --config=${config})
  endif()
  list(APPEND command_args ${arg_OPTIONS})

  # Transitive: $<TARGET_PROPERTY> of these build properties includes the
  # usage requirements of linked targets (fenceline::primitives' include dir).
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(include_flags "$<$<BOOL:${includes}>:--nvcc-flag=-I$<JOIN:${includes},;--nvcc-flag=-I>>")
  set(define_flags "$<$<BOOL:${defines}>:--nvcc-flag=-D$<JOIN:${defines},;--nvcc-flag=-D>>")

  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(stamps)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.cu$")
      continue()
    endif()
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
    file(RELATIVE_PATH name "${source_dir}" "${path}")
    string(REPLACE "../" "__/" name "${name}")
    set(stamp "${CMAKE_CURRENT_BINARY_DIR}/fenceline_check/${target}/${name}.checked")
    add_custom_command(OUTPUT "${stamp}"
      COMMAND fenceline::fenceline ${command_args} "${include_flags}" "${define_flags}" "${path}"
      COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
      DEPENDS "${path}" fenceline::fenceline
      COMMENT "fenceline check ${name}"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND stamps "${stamp}")
  endforeach()
  if(NOT stamps)
    message(WARNING "fenceline_check: target '${target}' has no .cu sources")
  endif()
  add_custom_target(${target}_fenceline ALL DEPENDS ${stamps})
endfunction()
