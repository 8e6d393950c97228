# cmake -DOUT=DIR -DROOT=scenarios -P seeds.cmake: every .kws under ROOT
# into DIR, one flat directory (libFuzzer's corpus), named by its path.
file(MAKE_DIRECTORY ${OUT})
file(GLOB_RECURSE files RELATIVE ${ROOT} ${ROOT}/*.kws)
foreach(f IN LISTS files)
  string(REPLACE "/" "--" name ${f})
  configure_file(${ROOT}/${f} ${OUT}/${name} COPYONLY)
endforeach()
