# Copies the kthread_worker part of a kernel tree into the build, unchanged:
#
#   cmake -DTREE=<kernel tree> -DOUT=<dir> -P extract.cmake
#
# writes
#   OUT/kthread_worker.c        kernel/kthread.c from "void __kthread_init_worker("
#                               through "EXPORT_SYMBOL(kthread_destroy_worker);"
#   OUT/kthread_worker_decls.h  include/linux/kthread.h from "struct kthread_work;"
#                               through the kthread_destroy_worker() prototype
#
# Each file is the kernel's text byte for byte, after one #line directive: a
# WARN then names kernel/kthread.c and the line it has in the tree, as the
# kernel's own splat does. The build runs this whenever either kernel file
# changes.

if(NOT TREE OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DTREE=<kernel tree> -DOUT=<dir> -P extract.cmake")
endif()

# The text of FILE from the first line starting with BEGIN through the end of
# the first line after it that starts with END; and where it starts (1-based).
function(kwsim_extract file begin end out_text out_line)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "${file}: no such file")
  endif()
  file(READ "${file}" text)
  # at the start of a line: "\n" before it (no section starts the file)
  string(FIND "${text}" "\n${begin}" from)
  if(from EQUAL -1)
    message(FATAL_ERROR "${file}: no line starting with '${begin}'; "
                        "is this a Linux tree with kthread_worker (4.9 or later)?")
  endif()
  math(EXPR from "${from} + 1")
  string(SUBSTRING "${text}" ${from} -1 rest)
  string(FIND "${rest}" "\n${end}" to)
  if(to EQUAL -1)
    message(FATAL_ERROR "${file}: no line starting with '${end}' after '${begin}'")
  endif()
  math(EXPR to "${to} + 1")
  string(SUBSTRING "${rest}" ${to} -1 tail)
  string(FIND "${tail}" "\n" eol)
  if(eol EQUAL -1)
    string(LENGTH "${tail}" eol)
  endif()
  math(EXPR len "${to} + ${eol}")
  string(SUBSTRING "${rest}" 0 ${len} section)

  # the section's first line number: the newlines before it, plus one
  string(SUBSTRING "${text}" 0 ${from} before)
  string(REGEX REPLACE "[^\n]" "" newlines "${before}")
  string(LENGTH "${newlines}" line)
  math(EXPR line "${line} + 1")

  set(${out_text} "${section}\n" PARENT_SCOPE)
  set(${out_line} ${line} PARENT_SCOPE)
endfunction()

kwsim_extract("${TREE}/kernel/kthread.c"
  "void __kthread_init_worker(" "EXPORT_SYMBOL(kthread_destroy_worker);" code code_line)
kwsim_extract("${TREE}/include/linux/kthread.h"
  "struct kthread_work;" "void kthread_destroy_worker(" decls decls_line)

# Written as read (not file(CONFIGURE), which would expand @...@ in the text).
file(WRITE "${OUT}/kthread_worker.c" "#line ${code_line} \"kernel/kthread.c\"\n${code}")
file(WRITE "${OUT}/kthread_worker_decls.h"
  "#line ${decls_line} \"include/linux/kthread.h\"\n${decls}")
