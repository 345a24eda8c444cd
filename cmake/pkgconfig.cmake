# onnxopt.pc: `pkg-config --cflags --libs onnxopt`. Included from the top-level CMakeLists.txt.
#
# Protobuf and Abseil ship .pc files, so they are Requires. ONNX has none: its flags are copied
# from its CMake targets (compile definitions, and include and library folders outside the
# compiler's own), and both its libraries are in Libs, as onnxopt::onnxopt links them publicly.
# What only the library's own sources use (absl_str_format) is Requires.private when a shared
# library is installed (`pkg-config --static` adds it for linking the archive), and Requires when
# the static archive is all there is, since linking it always needs it.

set(onnxopt_pc_public protobuf absl_status absl_statusor absl_strings absl_span absl_flat_hash_map
  absl_flat_hash_set absl_node_hash_map)
set(onnxopt_pc_private absl_str_format)
if(shared IN_LIST onnxopt_installed_kinds)
  list(JOIN onnxopt_pc_public " " onnxopt_pc_requires)
  list(JOIN onnxopt_pc_private " " onnxopt_pc_requires_private)
else()
  list(JOIN onnxopt_pc_public " " onnxopt_pc_requires)
  string(APPEND onnxopt_pc_requires " ${onnxopt_pc_private}")
  set(onnxopt_pc_requires_private "")
endif()

set(onnxopt_pc_cflags "")
get_target_property(onnx_definitions onnx INTERFACE_COMPILE_DEFINITIONS)
foreach(definition IN LISTS onnx_definitions)
  string(APPEND onnxopt_pc_cflags " -D${definition}")
endforeach()
get_target_property(onnx_includes onnx INTERFACE_INCLUDE_DIRECTORIES)
foreach(folder IN LISTS onnx_includes)
  # -I of a system folder would break the C library's #include_next.
  if(NOT folder IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    string(APPEND onnxopt_pc_cflags " -I${folder}")
  endif()
endforeach()

set(onnxopt_pc_libs "")
foreach(onnx_target onnx onnx_proto)
  get_target_property(location ${onnx_target} LOCATION)
  get_filename_component(folder "${location}" DIRECTORY)
  if(NOT folder IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND
     NOT " ${onnxopt_pc_libs} " MATCHES " -L${folder} ")
    string(APPEND onnxopt_pc_libs " -L${folder}")
  endif()
  string(APPEND onnxopt_pc_libs " -l${onnx_target}")
endforeach()

# The prefix is known only at install time (`cmake --install --prefix` may change it), so the file
# is written then, from a template with everything else filled in; straight to its destination,
# since installs into different prefixes may run at once.
set(onnxopt_pc_prefix "@CMAKE_INSTALL_PREFIX@")
foreach(kind libdir includedir)
  string(TOUPPER ${kind} upper)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${upper}}")
    set(onnxopt_pc_${kind} "${CMAKE_INSTALL_${upper}}")
  else()
    set(onnxopt_pc_${kind} "\${prefix}/${CMAKE_INSTALL_${upper}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(onnxopt_pc_file "${CMAKE_INSTALL_LIBDIR}/pkgconfig/onnxopt.pc")
else()
  set(onnxopt_pc_file "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/onnxopt.pc")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/onnxopt.pc.in ${CMAKE_CURRENT_BINARY_DIR}/onnxopt.pc.in
  @ONLY)
install(CODE "
  set(onnxopt_pc_file \"\$ENV{DESTDIR}${onnxopt_pc_file}\")
  message(STATUS \"Installing: \${onnxopt_pc_file}\")
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/onnxopt.pc.in\" \"\${onnxopt_pc_file}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${onnxopt_pc_file}\")
")
