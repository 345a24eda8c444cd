# Tests of the pass framework (included from tests/unit/CMakeLists.txt).
onnxopt_add_gtest(pass_framework_test pass_framework_test.cc)
onnxopt_add_gtest(greedy_driver_test greedy_driver_test.cc)
onnxopt_add_gtest(shape_oracle_test shape_oracle_test.cc)
target_include_directories(shape_oracle_test PRIVATE ${PROJECT_SOURCE_DIR})  # passes/framework/
onnxopt_add_gtest(framework_safety_test framework_safety_test.cc)
