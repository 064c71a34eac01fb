# Open MPI for the device machines, where nothing can be installed: Debian's
# packages, downloaded here and unpacked there. Sourced by the ring
# benchmarks (bench/cpu/ring.sh, bench/vulkan/ring.sh and their device-side
# run.sh, which find it in their DIR).

# Downloads the packages into DIR/debs unless they are there already.
mpi_debs_download() {
  if [ ! -d "$1/debs" ] || [ -z "$(ls "$1/debs")" ]; then
    mkdir -p "$1/debs"
    (cd "$1/debs" && apt-get download openmpi-bin openmpi-common \
      libopenmpi3 libpmix2 libhwloc15 libhwloc-plugins libevent-2.1-7 \
      libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libucx0 \
      libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1 \
      libltdl7 libmunge2 libpsm2-2 libpsm-infinipath1 ibverbs-providers \
      libxnvctrl0 ocl-icd-libopencl1 > /dev/null)
  fi
}

# Unpacks DIR/debs into $MPIROOT (default /opt/ejk-mpi) and sets up the
# environment: mpirun on PATH, DIR's and Open MPI's libraries found, root
# allowed, shared-memory transport.
mpi_debs_setup() {
  MPIROOT=${MPIROOT:-/opt/ejk-mpi}
  mkdir -p "$MPIROOT"
  for f in "$1"/debs/*.deb; do dpkg -x "$f" "$MPIROOT"; done
  export OPAL_PREFIX=$MPIROOT/usr PATH=$MPIROOT/usr/bin:$PATH
  export LD_LIBRARY_PATH=$1:$MPIROOT/usr/lib/x86_64-linux-gnu/openmpi/lib:$MPIROOT/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1
  export HWLOC_HIDE_ERRORS=1 PMIX_MCA_pcompress_base_silence_warning=1
}
