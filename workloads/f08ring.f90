! f08ring -- a ring code written with the Fortran 2008 bindings (use mpi_f08).
!
! Each step every rank posts MPI_Irecv from both ring neighbours and
! MPI_Isend to both, completes the two receives one at a time with
! MPI_Waitany -- using the returned (1-based) index to decide which
! neighbour's value arrived, so a wrong index changes the checksum -- then
! MPI_Waitall on the sends; every step ends with an MPI_Allreduce.
!
! The index base is calibrated first: MPICH before 4.1 returns a 0-based
! index from its mpi_f08 MPI_Waitany (pmodels/mpich#6270), so each rank
! completes one self-message with MPI_Waitany over (MPI_REQUEST_NULL, the
! receive) and takes the index it gets for the second request as the
! library's. A tracer that returned another index than the library's own
! binding, or changed it between the calibration and the loop, changes the
! checksum.
!
! Counts oracle (wlcount.f90), per rank, I iterations: MPI_Init 1,
! MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Irecv 2I+1, MPI_Send 1,
! MPI_Isend 2I, MPI_Waitany 2I+1, MPI_Waitall I, MPI_Allreduce I,
! MPI_Finalize 1.
! Options: -i I (default 20), -s S (values per message, default 4), -c PREFIX.
program f08ring
  use mpi_f08
  use wlcount
  implicit none
  integer :: iters, n, rank, nprocs, left, right, step, k, idx, second, probe
  character(len=4096) :: prefix
  logical :: have_prefix
  type(MPI_Request) :: rreq(2), sreq(2)
  double precision, allocatable :: fromleft(:), fromright(:), mine(:)
  double precision :: acc, total
  character(len=32) :: str

  call wl('MPI_Init')
  call MPI_Init()
  call wl('MPI_Comm_rank')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call wl('MPI_Comm_size')
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  iters = 20
  n = 4
  call wl_parse('wl_f08ring', rank, iters, n, prefix, have_prefix)
  allocate (fromleft(n), fromright(n), mine(n))
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  mine = rank + 1
  acc = 0
  ! the index MPI_Waitany returns for the second request of an array
  rreq(1) = MPI_REQUEST_NULL
  call wl('MPI_Irecv')
  call MPI_Irecv(probe, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, rreq(2))
  call wl('MPI_Send')
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD)
  call wl('MPI_Waitany')
  call MPI_Waitany(2, rreq, second, MPI_STATUS_IGNORE)
  do step = 1, iters
    call wl('MPI_Irecv')
    call MPI_Irecv(fromleft, n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, rreq(1))
    call wl('MPI_Irecv')
    call MPI_Irecv(fromright, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, rreq(2))
    call wl('MPI_Isend')
    call MPI_Isend(mine, n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, sreq(1))
    call wl('MPI_Isend')
    call MPI_Isend(mine, n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, sreq(2))
    do k = 1, 2
      call wl('MPI_Waitany')
      call MPI_Waitany(2, rreq, idx, MPI_STATUS_IGNORE)
      if (idx == second - 1) then
        acc = acc + 3.0d0 * sum(fromleft)
      else if (idx == second) then
        acc = acc + 5.0d0 * sum(fromright)
      else
        acc = acc - 1.0d6   ! an index outside the calibrated pair is a bug in someone's bindings
      end if
    end do
    call wl('MPI_Waitall')
    call MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE)
    mine = mine + 1
    call wl('MPI_Allreduce')
    call MPI_Allreduce(acc, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  if (rank == 0) then
    write (str, '(ES20.12)') total
    write (*, '(A,A)') 'checksum: ', trim(adjustl(str))
  end if
  call wl('MPI_Finalize')
  if (have_prefix) call wl_write(prefix, rank)
  call MPI_Finalize()
end program f08ring
