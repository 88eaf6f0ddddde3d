# The core for node-gyp (binding.gyp, and test/native/binding.gyp for the test addon): its CPU-only
# sources, listed as CMakeLists.txt lists them for msm_core, and the compiler settings every module
# over it shares, as defaults of every target. Paths here are relative to this file; gyp rebases
# them for the including file (it does so for "sources" and "include_dirs", not for variables).
{
  "target_defaults": {
    "sources": [
      "cuda/options.cpp",
      "cuda/common/codec.cpp",
      "cuda/common/env.cpp",
      "cuda/cpu/engine.cpp",
      "cuda/curves/shape.cpp",
      "cuda/msm/combine.cpp",
      "cuda/msm/plan.cpp",
      "cuda/msm/no_cuda.cpp"
    ],
    "include_dirs": [
      "<!(node -p \"require('path').dirname(require.resolve('node-addon-api/napi.h'))\")",
      "cuda"
    ],
    "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS",
                "NODE_ADDON_API_DISABLE_DEPRECATED"],
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
}
