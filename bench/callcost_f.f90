! callcost_f.f90 -- bench/callcost.c in Fortran: the recorder's cost per
! intercepted call through the Fortran bindings.
!
! Compiled three times with the preprocessor (bench/CMakeLists.txt):
!   bench_callcost_fh   include 'mpif.h'          (-DTF_BINDING=1)
!   bench_callcost_fmod use mpi                   (-DTF_BINDING=2)
!   bench_callcost_f08  use mpi_f08               (-DTF_BINDING=3)
! Two ranks time, with system_clock (CLOCK_MONOTONIC, ns), ITERS iterations of
!   (a) p2p:       MPI_Irecv + MPI_Isend + MPI_Waitall(2) of one double
!                  exchanged with the partner rank  (3 MPI calls per iteration)
!   (b) allreduce: MPI_Allreduce of one double       (1 MPI call per iteration)
! REPS times each (interleaved, after a warm-up), exactly as callcost.c, and
! rank 0 prints the same machine-readable lines (median and fastest
! repetition, ns per iteration), so bench/run.sh reads both alike.
!
! usage: bench_callcost_f.. [ITERS [REPS]]   (defaults 200000, 5)

#if TF_BINDING == 3
#define REQUEST type(MPI_Request)
#else
#define REQUEST integer
#endif

module callcost_f_loops
#if TF_BINDING == 2
  use mpi
#elif TF_BINDING == 3
  use mpi_f08
#endif
  implicit none
#if TF_BINDING == 1
  include 'mpif.h'
#endif
  private
  public :: p2p_loop, allreduce_loop, now_ns, median_sorted
contains
  ! the number of mismatched payloads seen (0 when all is well)
  integer(8) function p2p_loop(iters, partner, rank) result(bad)
    integer(8), intent(in) :: iters
    integer, intent(in) :: partner, rank
    double precision :: out, in
    REQUEST :: rq(2)
    integer(8) :: i
    integer :: ierr
    out = dble(rank)
    in = -1.0d0
    bad = 0
    do i = 1, iters
      call MPI_Irecv(in, 1, MPI_DOUBLE_PRECISION, partner, 0, MPI_COMM_WORLD, rq(1), ierr)
      call MPI_Isend(out, 1, MPI_DOUBLE_PRECISION, partner, 0, MPI_COMM_WORLD, rq(2), ierr)
      call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
      if (in /= dble(partner)) bad = bad + 1
    end do
  end function p2p_loop

  integer(8) function allreduce_loop(iters) result(bad)
    integer(8), intent(in) :: iters
    double precision :: one, total
    integer(8) :: i
    integer :: ierr
    one = 1.0d0
    total = 0.0d0
    bad = 0
    do i = 1, iters
      call MPI_Allreduce(one, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      if (total /= 2.0d0) bad = bad + 1
    end do
  end function allreduce_loop

  double precision function now_ns()
    integer(8) :: c, rate
    call system_clock(c, rate)
    now_ns = dble(c) * (1.0d9 / dble(rate))
  end function now_ns

  ! sorts v(1:n) in place and returns its median
  double precision function median_sorted(v, n)
    integer, intent(in) :: n
    double precision, intent(inout) :: v(n)
    double precision :: t
    integer :: i, j
    do i = 2, n
      t = v(i)
      j = i - 1
      do while (j >= 1)
        if (v(j) <= t) exit
        v(j + 1) = v(j)
        j = j - 1
      end do
      v(j + 1) = t
    end do
    if (mod(n, 2) == 1) then
      median_sorted = v(n / 2 + 1)
    else
      median_sorted = 0.5d0 * (v(n / 2) + v(n / 2 + 1))
    end if
  end function median_sorted
end module callcost_f_loops

program callcost_f
  use callcost_f_loops
#if TF_BINDING == 2
  use mpi
#elif TF_BINDING == 3
  use mpi_f08
#endif
  implicit none
#if TF_BINDING == 1
  include 'mpif.h'
#endif
  integer, parameter :: max_reps = 99
  integer :: ierr, rank, nprocs, partner, reps, r, st
  integer(8) :: iters, warm, bad, bad_all
  double precision :: p2p(max_reps), ar(max_reps), t0, mp, ma
  character(len=64) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  iters = 200000
  reps = 5
  st = 0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=st) iters
  end if
  if (st == 0 .and. command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=st) reps
  end if
  if (nprocs /= 2 .or. st /= 0 .or. iters < 1 .or. reps < 1 .or. reps > max_reps) then
    if (rank == 0) write (0, '(A,I0,A)') 'usage: mpirun -n 2 bench_callcost_f.. [ITERS>=1 [REPS 1..99]] (got ', &
      nprocs, ' ranks)'
    call MPI_Finalize(ierr)
    stop 2
  end if
  partner = 1 - rank

  ! warm-up: connection setup, page faults, caches, the recorder's buffers
  warm = max(iters / 10, 5000_8)
  bad = p2p_loop(warm, partner, rank) + allreduce_loop(warm)

  do r = 1, reps ! interleave the two so drift hits both alike
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = now_ns()
    bad = bad + p2p_loop(iters, partner, rank)
    p2p(r) = (now_ns() - t0) / dble(iters)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = now_ns()
    bad = bad + allreduce_loop(iters)
    ar(r) = (now_ns() - t0) / dble(iters)
  end do

  bad_all = 0
  call MPI_Reduce(bad, bad_all, 1, MPI_INTEGER8, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(A,I0,A,I0)') 'iters ', iters, ' reps ', reps
    write (*, '(A,99(1X,F0.1))') 'p2p_reps_ns', p2p(1:reps)
    write (*, '(A,99(1X,F0.1))') 'allreduce_reps_ns', ar(1:reps)
    mp = median_sorted(p2p, reps) ! sorts: p2p(1) is then the fastest repetition
    ma = median_sorted(ar, reps)
    write (*, '(A,F0.1,A)') 'p2p_ns_per_iter ', mp, ' calls_per_iter 3'
    write (*, '(A,F0.1,A)') 'allreduce_ns_per_iter ', ma, ' calls_per_iter 1'
    write (*, '(A,F0.1)') 'p2p_min_ns_per_iter ', p2p(1)
    write (*, '(A,F0.1)') 'allreduce_min_ns_per_iter ', ar(1)
    if (bad_all /= 0) write (0, '(A,I0,A)') 'bench_callcost_f: ', bad_all, ' wrong payloads'
  end if
  call MPI_Finalize(ierr)
  if (bad_all /= 0) stop 1
end program callcost_f
