# CPU-only addon for machines without CMake (node-gyp ships with npm). The build of record is
# CMakeLists.txt (cmake-js), which also builds the CUDA backend when nvcc is present.
{
  "includes": ["core.gypi"],
  "targets": [
    {
      "target_name": "msm_cuda",
      "sources": ["cuda/addon/module.cpp", "cuda/addon/context.cpp", "cuda/addon/field.cpp"],
      "defines": ["MSM_VERSION_RAW=<!(node -p \"require('./package.json').version\")"]
    }
  ]
}
