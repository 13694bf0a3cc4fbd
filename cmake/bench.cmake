# attnlab-bench: native (with OpenBLAS as the comparison, when installed) and WebAssembly (run under
# node by bench/run_wasm_bench.mjs, which adds the tfjs-wasm comparison in the same process).
add_executable(attnlab-bench bench/bench.cpp)
target_link_libraries(attnlab-bench PRIVATE attnlab_engine)
if(ATTNLAB_WEB)
  target_link_options(attnlab-bench PRIVATE -sALLOW_MEMORY_GROWTH=1 -sMODULARIZE=1 -sEXPORT_NAME=createAttnlabBench
                      -sENVIRONMENT=node -sINVOKE_RUN=0 -sEXIT_RUNTIME=0 -sEXPORTED_RUNTIME_METHODS=callMain -sSINGLE_FILE=1)
  set_target_properties(attnlab-bench PROPERTIES SUFFIX ".cjs")
else()
  find_library(ATTNLAB_OPENBLAS NAMES openblas PATHS /usr/lib/x86_64-linux-gnu/openblas-pthread /usr/lib/x86_64-linux-gnu)
  find_path(ATTNLAB_CBLAS_INCLUDE cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/x86_64-linux-gnu /usr/include/openblas)
  if(ATTNLAB_OPENBLAS AND ATTNLAB_CBLAS_INCLUDE)
    target_compile_definitions(attnlab-bench PRIVATE ATTNLAB_HAVE_OPENBLAS=1)
    target_include_directories(attnlab-bench SYSTEM PRIVATE ${ATTNLAB_CBLAS_INCLUDE})
    target_link_libraries(attnlab-bench PRIVATE ${ATTNLAB_OPENBLAS})
  else()
    message(STATUS "OpenBLAS not found: attnlab-bench runs without the openblas comparison (apt-get install libopenblas-dev)")
  endif()
endif()

# attnlab-ui-bench: one frame of the lab's UI natively, for a profiler (bench/ui_frame_bench.cpp).
if(ATTNLAB_UI AND NOT ATTNLAB_WEB AND ATTNLAB_FONT)
  add_executable(attnlab-ui-bench bench/ui_frame_bench.cpp)
  target_link_libraries(attnlab-ui-bench PRIVATE attnlab_ui)
  target_compile_definitions(attnlab-ui-bench PRIVATE ATTNLAB_FONT_PATH="${ATTNLAB_FONT}")
endif()
