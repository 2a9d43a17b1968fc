# aimz_add_fuzz_target(NAME SOURCE LIBRARY CORPUS TEST MUTATIONS TIMEOUT):
# a fuzz target (a file defining LLVMFuzzerTestOneInput) replayed by the test
# suite over CORPUS plus MUTATIONS random mutations of each seed
# (aimz-fuzz-replay-NAME, ctest TEST), and, with -DAIMZ_ENABLE_FUZZERS=ON
# (clang), the libFuzzer binary aimz-NAME-fuzzer in bin/ (docs/fuzzing.md).
function(aimz_add_fuzz_target NAME SOURCE LIBRARY CORPUS TEST MUTATIONS TIMEOUT)
  add_executable(aimz-fuzz-replay-${NAME} ${SOURCE}
                 ${PROJECT_SOURCE_DIR}/runtime/io/fuzz/ReplayMain.cpp)
  target_link_libraries(aimz-fuzz-replay-${NAME} PRIVATE ${LIBRARY})
  add_test(NAME ${TEST}
    COMMAND aimz-fuzz-replay-${NAME} --mutations ${MUTATIONS} ${CORPUS})
  set_tests_properties(${TEST} PROPERTIES TIMEOUT ${TIMEOUT})
  if(AIMZ_ENABLE_FUZZERS)
    add_executable(aimz-${NAME}-fuzzer ${SOURCE})
    target_compile_options(aimz-${NAME}-fuzzer PRIVATE -fsanitize=fuzzer)
    target_link_options(aimz-${NAME}-fuzzer PRIVATE -fsanitize=fuzzer)
    target_link_libraries(aimz-${NAME}-fuzzer PRIVATE ${LIBRARY})
    set_target_properties(aimz-${NAME}-fuzzer PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  endif()
endfunction()
