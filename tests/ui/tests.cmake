# Headless UI tests: the real panels driven through Dear ImGui's input queue, with no renderer.
# test_draw_runs.cpp: the renderer's split of the lab's draw commands (src/platform/draw_runs.h), which needs no GL;
# test_learn_warmup.cpp: the web shell's Learn mode drawn out of sight (src/platform/learn_warmup.h).
add_executable(attnlab_ui_tests ${CMAKE_CURRENT_LIST_DIR}/test_ui.cpp ${CMAKE_CURRENT_LIST_DIR}/test_clarity.cpp
                                ${CMAKE_CURRENT_LIST_DIR}/test_draw_runs.cpp ${CMAKE_SOURCE_DIR}/src/platform/draw_runs.cpp
                                ${CMAKE_CURRENT_LIST_DIR}/test_learn_warmup.cpp ${CMAKE_SOURCE_DIR}/src/platform/learn_warmup.cpp)
target_include_directories(attnlab_ui_tests PRIVATE ${CMAKE_SOURCE_DIR}/src/platform)
target_link_libraries(attnlab_ui_tests PRIVATE attnlab_ui ${ATTNLAB_GTEST})
target_compile_definitions(attnlab_ui_tests PRIVATE ATTNLAB_FONT_PATH="${ATTNLAB_FONT}"  # the shells' font, for sizes
                           ATTNLAB_UI_FONT_PATH="${ATTNLAB_UI_FONT}"                      # and its subset (UiFont)
                           ATTNLAB_SOURCE_DIR="${CMAKE_SOURCE_DIR}")                      # docs/web-api.md, for its names
add_dependencies(attnlab_ui_tests attnlab_ui_font)
add_test(NAME ui_headless COMMAND attnlab_ui_tests)

# The shells' input queue alone: which events each frame hands Dear ImGui (quick clicks, Ctrl+A, typing).
add_executable(attnlab_input_tests ${CMAKE_CURRENT_LIST_DIR}/test_input_queue.cpp ${CMAKE_SOURCE_DIR}/src/platform/input_queue.cpp)
target_include_directories(attnlab_input_tests PRIVATE ${CMAKE_SOURCE_DIR}/src/platform)
target_link_libraries(attnlab_input_tests PRIVATE ${ATTNLAB_GTEST})
add_test(NAME input_queue COMMAND attnlab_input_tests)

# The desktop app in Xvfb, typed into with xdotool.
add_test(NAME desktop_xvfb COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../desktop/test_desktop.sh $<TARGET_FILE:attnlab> ${CMAKE_BINARY_DIR}/desktop-test)

# Learn mode, headless: training through the panels' buttons and keys.
add_executable(attnlab_learn_ui_tests ${CMAKE_CURRENT_LIST_DIR}/test_learn.cpp)
target_link_libraries(attnlab_learn_ui_tests PRIVATE attnlab_ui ${ATTNLAB_GTEST})
target_compile_definitions(attnlab_learn_ui_tests PRIVATE ATTNLAB_FONT_PATH="${ATTNLAB_FONT}")  # the shells' font, for sizes
add_test(NAME ui_learn_headless COMMAND attnlab_learn_ui_tests)

# Learn mode's Inspect view, headless: heads ablated by a click, Ablate each, the page API's interventions.
add_executable(attnlab_inspect_ui_tests ${CMAKE_CURRENT_LIST_DIR}/test_inspect.cpp)
target_link_libraries(attnlab_inspect_ui_tests PRIVATE attnlab_ui ${ATTNLAB_GTEST})
target_compile_definitions(attnlab_inspect_ui_tests PRIVATE ATTNLAB_FONT_PATH="${ATTNLAB_FONT}")
add_test(NAME ui_inspect_headless COMMAND attnlab_inspect_ui_tests)

# The UI's i18n helpers: where sentences wrap (widgets.h wrap_lines: Chinese between characters, never inside
# "0.02") and the matrix views' names (view_label). Named i18n_ui so that `ctest -R i18n` runs it too.
# test_i18n_wrap_drawn.cpp reads the lab's windows back from their draw lists in Chinese (the catalogues' folder).
# test_i18n_fit.cpp checks what a longer language must still fit on a phone, with the shells' font.
add_executable(attnlab_i18n_ui_tests ${CMAKE_CURRENT_LIST_DIR}/test_i18n_wrap.cpp ${CMAKE_CURRENT_LIST_DIR}/test_i18n_views.cpp
                                     ${CMAKE_CURRENT_LIST_DIR}/test_i18n_wrap_drawn.cpp ${CMAKE_CURRENT_LIST_DIR}/test_i18n_fit.cpp)
target_link_libraries(attnlab_i18n_ui_tests PRIVATE attnlab_ui ${ATTNLAB_GTEST})
target_compile_definitions(attnlab_i18n_ui_tests PRIVATE ATTNLAB_LANG_DIR="${CMAKE_SOURCE_DIR}/assets/lang" ATTNLAB_FONT_PATH="${ATTNLAB_FONT}")
add_test(NAME i18n_ui COMMAND attnlab_i18n_ui_tests)
