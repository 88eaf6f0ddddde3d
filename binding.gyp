# CPU-only addon for machines without CMake (node-gyp ships with npm). The build of record is
# CMakeLists.txt (cmake-js), which also builds the CUDA backend when nvcc is present.
{
  "targets": [
    {
      "target_name": "msm_cuda",
      "sources": [
        "cuda/addon/module.cpp",
        "cuda/addon/context.cpp",
        "cuda/cpu/codec.cpp",
        "cuda/options.cpp",
        "cuda/cpu/engine.cpp",
        "cuda/curves/shape.cpp",
        "cuda/msm/no_cuda.cpp"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "cuda"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NAPI_CPP_EXCEPTIONS",
        "NODE_ADDON_API_DISABLE_DEPRECATED",
        "MSM_NO_TESTING",
        "MSM_VERSION_RAW=<!(node -p \"require('./package.json').version\")"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++14", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-O3", "-fomit-frame-pointer", "-fexceptions", "-frtti"],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "MACOSX_DEPLOYMENT_TARGET": "10.15",
        "OTHER_CPLUSPLUSFLAGS": ["-O3"]
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] }
      }
    }
  ]
}
