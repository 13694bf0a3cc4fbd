# Dear ImGui 1.86 from Debian's source package (scripts/fetch_imgui.sh), or IMGUI_DIR if given.
if(NOT IMGUI_DIR)
  set(IMGUI_DIR ${CMAKE_SOURCE_DIR}/third_party/imgui)
  if(NOT EXISTS ${IMGUI_DIR}/imgui.cpp)
    message(STATUS "Fetching the Dear ImGui source (scripts/fetch_imgui.sh)")
    execute_process(COMMAND ${CMAKE_SOURCE_DIR}/scripts/fetch_imgui.sh RESULT_VARIABLE rc OUTPUT_QUIET)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "Could not fetch Dear ImGui: run scripts/setup.sh, or pass -DIMGUI_DIR=/path/to/imgui-1.86")
    endif()
  endif()
endif()
if(NOT EXISTS ${IMGUI_DIR}/imgui.cpp OR NOT EXISTS ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp)
  message(FATAL_ERROR "IMGUI_DIR=${IMGUI_DIR} is not a Dear ImGui source tree with backends/")
endif()
# The UI relies on 1.86's key and input API (io.KeysDown, AddInputCharacter...): refuse another version.
file(STRINGS ${IMGUI_DIR}/imgui.h ATTNLAB_IMGUI_VERSION REGEX "^#define IMGUI_VERSION_NUM +[0-9]+")
string(REGEX REPLACE "^#define IMGUI_VERSION_NUM +" "" ATTNLAB_IMGUI_VERSION "${ATTNLAB_IMGUI_VERSION}")
if(NOT ATTNLAB_IMGUI_VERSION STREQUAL "18600")
  message(FATAL_ERROR "IMGUI_DIR=${IMGUI_DIR} is Dear ImGui ${ATTNLAB_IMGUI_VERSION}, this code needs 1.86 (18600): "
                      "run scripts/fetch_imgui.sh or pass a 1.86 tree")
endif()

add_library(imgui_core STATIC
  ${IMGUI_DIR}/imgui.cpp
  ${IMGUI_DIR}/imgui_draw.cpp
  ${IMGUI_DIR}/imgui_widgets.cpp
  ${IMGUI_DIR}/imgui_tables.cpp
  ${IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp)
target_include_directories(imgui_core SYSTEM PUBLIC ${IMGUI_DIR} ${IMGUI_DIR}/misc/cpp)
# 32-bit indices: a 128x128 heatmap grid per head needs more than 65535 vertices on WebGL2 too.
# 32-bit characters: typed or pasted emoji and other text beyond the BMP reach the tokenizer intact.
target_compile_definitions(imgui_core PUBLIC ImDrawIdx=unsigned\ int IMGUI_USE_WCHAR32 IMGUI_DISABLE_OBSOLETE_FUNCTIONS)
target_compile_options(imgui_core PRIVATE -w)

# The GLFW platform backend, for the two windowed shells (the renderer is ours: src/platform/gl_renderer.cpp).
add_library(imgui_glfw_gl3 STATIC
  ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp)
target_include_directories(imgui_glfw_gl3 SYSTEM PUBLIC ${IMGUI_DIR}/backends)
target_link_libraries(imgui_glfw_gl3 PUBLIC imgui_core)
target_compile_options(imgui_glfw_gl3 PRIVATE -w)
if(ATTNLAB_WEB)
  target_link_options(imgui_glfw_gl3 PUBLIC -sUSE_GLFW=3)
else()
  find_package(glfw3 REQUIRED)
  find_package(OpenGL REQUIRED)
  target_link_libraries(imgui_glfw_gl3 PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
endif()
