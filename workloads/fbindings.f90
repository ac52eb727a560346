! fbindings -- the corners of the Fortran bindings that the recorder's
! Fortran entry points convert (src/recorder/fortran_support.c), each
! checked against the MPI library's own binding: the test runs it with and
! without tracefold and requires the same output (tests/run_workload.sh).
!
! Compiled three times with the preprocessor (workloads/CMakeLists.txt):
!   wl_fbindings_fh   include 'mpif.h'   (-DTF_BINDING=1)
!   wl_fbindings_fmod use mpi            (-DTF_BINDING=2)
!   wl_fbindings_f08  use mpi_f08        (-DTF_BINDING=3)
! It is not one of the workloads every test runs (TF_WORKLOADS): it is
! about the bindings, not about replay or simulation.
!
! Per step, on a ring (left, right; any number of ranks):
!   MPI_IN_PLACE (MPI_Allreduce), MPI_BOTTOM (a struct of absolute
!   addresses, MPI_Sendrecv), MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE
!   (MPI_Waitall, MPI_Waitany, ...; the ignore objects must stay untouched),
!   real statuses (MPI_Waitall, MPI_Sendrecv from MPI_ANY_SOURCE,
!   MPI_Get_count, MPI_Test_cancelled), the index of MPI_Waitany,
!   MPI_Testany and MPI_Waitsome (calibrated once: MPICH before 4.1 returns
!   0-based indices from its mpi_f08 bindings; the recorder must return
!   what the library's binding does), strided array sections (with
!   mpi_f08 under MPICH the library's own routine makes such calls:
!   blocking, and nonblocking where MPI_SUBARRAYS_SUPPORTED), MPI_Pack /
!   MPI_Unpack / MPI_Pack_size, MPI_Alltoallw with arrays of datatypes, a
!   distributed graph with MPI_UNWEIGHTED (MPI_Dist_graph_neighbors_count
!   must say unweighted), MPI_Pcontrol, a user op (MPI_Op_create: only the
!   library's binding can call a Fortran user function). Once, with an MPI
!   4.0 library (-DTF_MPI4=1): MPI_Isendrecv, MPI_Allreduce_init (in
!   place), MPI_Psend_init/MPI_Precv_init (an MPI_COUNT_KIND count) with
!   MPI_Pready_range.
! Every value received goes into the checksum; any check that fails is
! printed. Counts oracle: wlcount.f90 (each call is counted where made).
! Options: -i steps (default 3), -s values per message (default 4), -c PREFIX.

#if TF_BINDING == 3
#define HANDLE(t) type(t)
#define STATUS type(MPI_Status)
#define STATUSES(n) type(MPI_Status), dimension(n)
#define SOURCE(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define SOURCE_I(s, i) s(i)%MPI_SOURCE
#define IGNORED_STATUS MPI_STATUS_IGNORE%MPI_SOURCE, MPI_STATUS_IGNORE%MPI_TAG, MPI_STATUSES_IGNORE(1)%MPI_SOURCE, MPI_STATUSES_IGNORE(1)%MPI_TAG
#else
#define HANDLE(t) integer
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define STATUSES(n) integer, dimension(MPI_STATUS_SIZE, n)
#define SOURCE(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define SOURCE_I(s, i) s(MPI_SOURCE, i)
#define IGNORED_STATUS MPI_STATUS_IGNORE(MPI_SOURCE), MPI_STATUS_IGNORE(MPI_TAG), MPI_STATUSES_IGNORE(MPI_SOURCE, 1), MPI_STATUSES_IGNORE(MPI_TAG, 1)
#endif

! a user reduction (MPI_Op_create): the larger of each pair of doubles
module fbindings_ops
#if TF_BINDING == 3
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
#endif
  implicit none
contains
#if TF_BINDING == 3
  subroutine fb_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    double precision, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(a, b)
  end subroutine fb_max
#else
  subroutine fb_max(invec, inoutvec, len, datatype)
    integer :: len, datatype
    double precision :: invec(len), inoutvec(len)
    inoutvec = max(invec, inoutvec)
  end subroutine fb_max
#endif
end module fbindings_ops

program fbindings
  use fbindings_ops
#if TF_BINDING == 2
  use mpi
#elif TF_BINDING == 3
  use mpi_f08
#endif
  use wlcount
  implicit none
#if TF_BINDING == 1
  include 'mpif.h'
#endif
  integer :: iters, n, rank, nprocs, left, right, step, k, idx, second, probe, ierr, cnt, outcount, i
  integer :: indices(2), ignored0(4), ignored1(4), indeg, outdeg, position, packsize, ival, ival2
  integer(kind=MPI_ADDRESS_KIND) :: addr(2)
#if TF_MPI4
  integer(kind=MPI_COUNT_KIND) :: pcount
#endif
  integer, allocatable :: counts(:), displs(:)
  logical :: flag, weighted
  character(len=4096) :: prefix
  character(len=32) :: str
  character(len=256) :: packed, packed2
  logical :: have_prefix
  HANDLE(MPI_Request) :: rq(4)
  HANDLE(MPI_Datatype) :: tsend, trecv, types(2), dtype
  HANDLE(MPI_Datatype), allocatable :: wtypes(:)
  HANDLE(MPI_Comm) :: graph
  HANDLE(MPI_Op) :: maxop
  integer :: blocklens(2), srcs(1), dsts(1)
  STATUS :: st
  STATUSES(4) :: sts
  double precision, allocatable :: a(:), b(:), c(:), wl_in(:), wl_out(:)
  double precision :: x, dval, dval2, total, gtotal
  integer :: bad

  call wl('MPI_Init')
  call MPI_Init(ierr)
  call wl('MPI_Comm_rank')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call wl('MPI_Comm_size')
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  iters = 3
  n = 4
  call wl_parse('wl_fbindings', rank, iters, n, prefix, have_prefix)
  allocate (a(2 * n), b(2 * n), c(2 * n), counts(nprocs), displs(nprocs), wtypes(nprocs), wl_in(nprocs), &
            wl_out(nprocs))
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  ignored0 = [IGNORED_STATUS]
  bad = 0
  total = 0

  ! the index MPI_Waitany returns for the second request of an array
  rq(1) = MPI_REQUEST_NULL
  call wl('MPI_Irecv')
  call MPI_Irecv(probe, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, rq(2), ierr)
  call wl('MPI_Send')
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, ierr)
  call wl('MPI_Waitany')
  call MPI_Waitany(2, rq, second, MPI_STATUS_IGNORE, ierr)

  do step = 1, iters
    ! MPI_IN_PLACE
    x = dble(rank + step)
    call wl('MPI_Allreduce')
    call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(x == dble(nprocs * (nprocs - 1) / 2 + nprocs * step), 'MPI_IN_PLACE')
    total = total + x

    ! MPI_STATUSES_IGNORE, then real statuses
    do k = 1, 2
      a = [(dble(rank * 100 + i + step), i = 1, 2 * n)]
      call wl('MPI_Irecv')
      call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, rq(1), ierr)
      call wl('MPI_Irecv')
      call MPI_Irecv(c, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, rq(2), ierr)
      call wl('MPI_Isend')
      call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, rq(3), ierr)
      call wl('MPI_Isend')
      call MPI_Isend(a(n + 1), n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, rq(4), ierr)
      call wl('MPI_Waitall')
      if (k == 1) then
        call MPI_Waitall(4, rq, MPI_STATUSES_IGNORE, ierr)
      else
        call MPI_Waitall(4, rq, sts, ierr)
        call check(SOURCE_I(sts, 1) == left .and. SOURCE_I(sts, 2) == right, 'MPI_Waitall statuses')
      end if
      total = total + sum(b(1:n)) + 2 * sum(c(1:n))
    end do

    ! a status from MPI_ANY_SOURCE, MPI_Get_count, MPI_Test_cancelled
    call wl('MPI_Sendrecv')
    call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, right, 7, b, 2 * n, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 7, &
                      MPI_COMM_WORLD, st, ierr)
    call check(SOURCE(st) == left .and. TAG(st) == 7, 'MPI_Sendrecv status')
    call wl('MPI_Get_count')
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
    call check(cnt == n, 'MPI_Get_count')
    call wl('MPI_Test_cancelled')
    call MPI_Test_cancelled(st, flag, ierr)
    call check(.not. flag, 'MPI_Test_cancelled')
    total = total + 3 * sum(b(1:n))

    ! the indices of MPI_Waitany, MPI_Testany, MPI_Waitsome (1-based, or as calibrated)
    do k = 1, 3
      b = 0
      c = 0
      call wl('MPI_Irecv')
      call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, left, 4, MPI_COMM_WORLD, rq(1), ierr)
      call wl('MPI_Irecv')
      call MPI_Irecv(c, n, MPI_DOUBLE_PRECISION, right, 5, MPI_COMM_WORLD, rq(2), ierr)
      call wl('MPI_Send')
      call MPI_Send(a, n, MPI_DOUBLE_PRECISION, right, 4, MPI_COMM_WORLD, ierr)
      call wl('MPI_Send')
      call MPI_Send(a(n + 1), n, MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, ierr)
      outcount = 0
      do while (outcount < 2)
        if (k == 1) then
          call wl('MPI_Waitany')
          call MPI_Waitany(2, rq, idx, MPI_STATUS_IGNORE, ierr)
          call took(idx)
        else if (k == 2) then
          call wl('MPI_Testany')
          call MPI_Testany(2, rq, idx, flag, MPI_STATUS_IGNORE, ierr)
          if (flag) call took(idx)
        else
          call wl('MPI_Waitsome')
          call MPI_Waitsome(2, rq, i, indices, MPI_STATUSES_IGNORE, ierr)
          do idx = 1, i
            call took(indices(idx))
          end do
        end if
      end do
    end do

    ! MPI_BOTTOM: a struct of absolute addresses, sent and received
    ival = rank + 10 * step
    dval = 0.5d0 * rank
    call MPI_Get_address(ival, addr(1), ierr)
    call MPI_Get_address(dval, addr(2), ierr)
    blocklens = 1
    types(1) = MPI_INTEGER
    types(2) = MPI_DOUBLE_PRECISION
    call wl('MPI_Type_create_struct')
    call MPI_Type_create_struct(2, blocklens, addr, types, tsend, ierr)
    call MPI_Get_address(ival2, addr(1), ierr)
    call MPI_Get_address(dval2, addr(2), ierr)
    call wl('MPI_Type_create_struct')
    call MPI_Type_create_struct(2, blocklens, addr, types, trecv, ierr)
    call wl('MPI_Type_commit')
    call MPI_Type_commit(tsend, ierr)
    call wl('MPI_Type_commit')
    call MPI_Type_commit(trecv, ierr)
    call wl('MPI_Sendrecv')
    call MPI_Sendrecv(MPI_BOTTOM, 1, tsend, right, 8, MPI_BOTTOM, 1, trecv, left, 8, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call check(ival2 == left + 10 * step .and. dval2 == 0.5d0 * left, 'MPI_BOTTOM')
    total = total + ival2 + dval2
    call wl('MPI_Type_free')
    call MPI_Type_free(tsend, ierr)
    call wl('MPI_Type_free')
    call MPI_Type_free(trecv, ierr)

    ! strided sections (compiler copies with mpif.h and use mpi; descriptors with mpi_f08)
    c = -1
    call wl('MPI_Sendrecv')
    call MPI_Sendrecv(a(1:2 * n:2), n, MPI_DOUBLE_PRECISION, right, 9, c(2:2 * n:2), n, MPI_DOUBLE_PRECISION, &
                      left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(all(c(1:2 * n:2) == -1), 'strided receive')
    total = total + 5 * sum(c(2:2 * n:2))
#if TF_BINDING == 3
    if (MPI_SUBARRAYS_SUPPORTED) then
      b = -1
      call wl('MPI_Irecv')
      call MPI_Irecv(b(1:2 * n:2), n, MPI_DOUBLE_PRECISION, left, 10, MPI_COMM_WORLD, rq(1), ierr)
      call wl('MPI_Isend')
      call MPI_Isend(a(2:2 * n:2), n, MPI_DOUBLE_PRECISION, right, 10, MPI_COMM_WORLD, rq(2), ierr)
      call wl('MPI_Waitall')
      call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
      call check(all(b(2:2 * n:2) == -1), 'strided nonblocking receive')
      total = total + 7 * sum(b(1:2 * n:2))
    end if
#endif

    ! MPI_Pack, MPI_Unpack, MPI_Pack_size
    call wl('MPI_Pack_size')
    call MPI_Pack_size(n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, packsize, ierr)
    call check(packsize <= len(packed) - 8, 'MPI_Pack_size')
    position = 0
    call wl('MPI_Pack')
    call MPI_Pack(rank, 1, MPI_INTEGER, packed, len(packed), position, MPI_COMM_WORLD, ierr)
    call wl('MPI_Pack')
    call MPI_Pack(a, n, MPI_DOUBLE_PRECISION, packed, len(packed), position, MPI_COMM_WORLD, ierr)
    call wl('MPI_Sendrecv')
    call MPI_Sendrecv(packed, position, MPI_PACKED, right, 11, packed2, len(packed2), MPI_PACKED, left, 11, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    position = 0
    call wl('MPI_Unpack')
    call MPI_Unpack(packed2, len(packed2), position, ival2, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call wl('MPI_Unpack')
    call MPI_Unpack(packed2, len(packed2), position, b, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    call check(ival2 == left, 'MPI_Unpack')
    total = total + 11 * sum(b(1:n))

    ! MPI_Alltoallw: one double to every rank, datatypes per peer
    do i = 1, nprocs
      wl_out(i) = dble(1000 * rank + i + step)
      counts(i) = 1
      displs(i) = 8 * (i - 1)
      wtypes(i) = MPI_DOUBLE_PRECISION
    end do
    call wl('MPI_Alltoallw')
    call MPI_Alltoallw(wl_out, counts, displs, wtypes, wl_in, counts, displs, wtypes, MPI_COMM_WORLD, ierr)
    do i = 1, nprocs
      call check(wl_in(i) == dble(1000 * (i - 1) + rank + 1 + step), 'MPI_Alltoallw')
    end do
    total = total + sum(wl_in)
  end do

#if TF_MPI4
  ! MPI 4.0 (where the library implements it): MPI_Isendrecv, a persistent
  ! collective, partitioned communication with an MPI_COUNT_KIND count
  a = dble(rank)
  b = -1
  call wl('MPI_Isendrecv')
  call MPI_Isendrecv(a, n, MPI_DOUBLE_PRECISION, right, 12, b, n, MPI_DOUBLE_PRECISION, left, 12, &
                     MPI_COMM_WORLD, rq(1), ierr)
  call wl('MPI_Wait')
  call MPI_Wait(rq(1), MPI_STATUS_IGNORE, ierr)
  call check(all(b(1:n) == dble(left)), 'MPI_Isendrecv')
  total = total + sum(b(1:n))
  x = dble(rank + 1)
  call wl('MPI_Allreduce_init')
  call MPI_Allreduce_init(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          rq(1), ierr)
  call wl('MPI_Start')
  call MPI_Start(rq(1), ierr)
  call wl('MPI_Wait')
  call MPI_Wait(rq(1), MPI_STATUS_IGNORE, ierr)
  call check(x == dble(nprocs * (nprocs + 1) / 2), 'MPI_Allreduce_init')
  total = total + x
  call wl('MPI_Request_free')
  call MPI_Request_free(rq(1), ierr)
  pcount = n
  a = dble(10 * rank)
  b = -1
  call wl('MPI_Precv_init')
  call MPI_Precv_init(b, 2, pcount, MPI_DOUBLE_PRECISION, left, 13, MPI_COMM_WORLD, MPI_INFO_NULL, rq(1), ierr)
  call wl('MPI_Psend_init')
  call MPI_Psend_init(a, 2, pcount, MPI_DOUBLE_PRECISION, right, 13, MPI_COMM_WORLD, MPI_INFO_NULL, rq(2), ierr)
  call wl('MPI_Startall')
  call MPI_Startall(2, rq, ierr)
  call wl('MPI_Pready_range')
  call MPI_Pready_range(0, 1, rq(2), ierr)
  call wl('MPI_Waitall')
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
  call check(all(b == dble(10 * left)), 'MPI_Psend_init')
  total = total + sum(b)
  call wl('MPI_Request_free')
  call MPI_Request_free(rq(1), ierr)
  call wl('MPI_Request_free')
  call MPI_Request_free(rq(2), ierr)
#endif

  ! MPI_UNWEIGHTED
  srcs(1) = left
  dsts(1) = right
  call wl('MPI_Dist_graph_create_adjacent')
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., graph, ierr)
  call wl('MPI_Dist_graph_neighbors_count')
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  call check(indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'MPI_UNWEIGHTED')
  call wl('MPI_Comm_free')
  call MPI_Comm_free(graph, ierr)
  call wl('MPI_Pcontrol')
  call MPI_Pcontrol(1)

  ! a user op: the library calls the Fortran function
  call wl('MPI_Op_create')
  call MPI_Op_create(fb_max, .true., maxop, ierr)
  x = dble(mod(rank + 1, nprocs))
  call wl('MPI_Allreduce')
  call MPI_Allreduce(x, dval, 1, MPI_DOUBLE_PRECISION, maxop, MPI_COMM_WORLD, ierr)
  call check(dval == dble(nprocs - 1), 'MPI_Op_create')
  total = total + dval
  call wl('MPI_Op_free')
  call MPI_Op_free(maxop, ierr)
  dtype = MPI_DOUBLE_PRECISION

  ignored1 = [IGNORED_STATUS]
  call check(all(ignored0 == ignored1), 'MPI_STATUS(ES)_IGNORE written to')
  call wl('MPI_Reduce')
  call MPI_Reduce(total, gtotal, 1, dtype, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (str, '(ES20.12)') gtotal
    write (*, '(A,A)') 'checksum: ', trim(adjustl(str))
  end if
  call wl('MPI_Finalize')
  if (have_prefix) call wl_write(prefix, rank)
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (*, '(A,I0,A,I0,A,A)') 'rank ', rank, ' step ', step, ': wrong: ', what
      bad = bad + 1
    end if
  end subroutine check

  ! a completion at index j (as calibrated) of rq(1:2)
  subroutine took(j)
    integer, intent(in) :: j
    if (j == second - 1) then
      total = total + 13 * sum(b(1:n))
    else if (j == second) then
      total = total + 17 * sum(c(1:n))
    else
      call check(.false., 'index of a completed request')
    end if
    outcount = outcount + 1
  end subroutine took
end program fbindings
