# The test addon, CPU-only, for checkouts built without CMake (scripts/build-testing.js runs
# `node-gyp rebuild --directory test/native`); CMakeLists.txt builds it otherwise.
{
  "includes": ["../../core.gypi"],
  "targets": [
    {
      "target_name": "msm_cuda_testing",
      "sources": [
        "module.cpp", "stages.cpp", "stages_ct.cpp", "tools.cpp", "plan.cpp", "g2.cpp"
      ]
    }
  ]
}
