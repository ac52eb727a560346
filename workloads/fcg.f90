! fcg -- a Fortran conjugate-gradient solver in the style of legacy codes
! (include 'mpif.h'): the 5-point Laplacian on a slab decomposition of an
! N x (16 P) grid, rank r owning N x 16 points, solved for a right-hand side
! of ones for a fixed number of iterations.
!
! Per iteration: the halo exchange of the search direction's boundary
! layers with both neighbours -- MPI_IRECV from each, MPI_SEND to each (N
! values each way, 14 KB with the default N = 1750), MPI_WAIT on each
! receive -- then the matrix-vector product, and two dot products with
! MPI_ALLREDUCE. The ends of the slab have MPI_PROC_NULL as a neighbour
! (not periodic). 8 MPI calls per iteration, so the cost test's -i 625 makes
! 5,000 calls per rank, between which each rank computes some 30,000 points
! (the proportions of a strong-scaled solver).
!
! Rank 0 prints the final residual as the checksum, and its own timer (the
! iteration loop, after a barrier) on stderr, so tests/fortran_cost.sh can
! compare a traced with an untraced run:
!   fcg: loop <seconds> s
!
! Counts oracle (wlcount.f90), per rank, I iterations: MPI_Init 1,
! MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Barrier 1, MPI_Irecv 2I,
! MPI_Send 2I, MPI_Wait 2I, MPI_Allreduce 2I + 1, MPI_Finalize 1.
! Options: -i I (default 20), -s N (default 1750), -c PREFIX.

program fcg
  use wlcount
  implicit none
  include 'mpif.h'

  integer, parameter :: m = 16 ! layers per rank
  integer :: iters, n, rank, nprocs, ierr, left, right, it, i, j
  integer :: req(2), status(MPI_STATUS_SIZE)
  character(len=4096) :: prefix
  logical :: have_prefix
  double precision, allocatable :: x(:, :), r(:, :), p(:, :), q(:, :)
  double precision :: rr, rr_new, pq, alpha, beta, local
  integer(8) :: c0, c1, rate
  character(len=32) :: str

  call wl('MPI_Init')
  call MPI_INIT(ierr)
  call wl('MPI_Comm_rank')
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call wl('MPI_Comm_size')
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 20
  n = 1750
  call wl_parse('wl_fcg', rank, iters, n, prefix, have_prefix)
  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL
  if (rank == 0) write (*, '(A,I0,A,I0,A,I0,A,I0,A)') 'fcg: ', nprocs, ' ranks, ', n, ' x ', m, &
    ' points each, ', iters, ' iterations'

  ! p(i, j): i along the slab's face (contiguous), j across it; rows 0 and
  ! n+1 are the boundary (0), columns 0 and m+1 the neighbours' layers (0
  ! beyond the ends: a receive from MPI_PROC_NULL leaves them alone)
  allocate (x(n, m), r(n, m), p(0:n + 1, 0:m + 1), q(n, m))
  x = 0
  r = 1 ! b - A x with x = 0
  p = 0
  p(1:n, 1:m) = r
  local = sum(r * r)
  call wl('MPI_Allreduce')
  call MPI_ALLREDUCE(local, rr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)

  call wl('MPI_Barrier')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call system_clock(c0, rate)
  do it = 1, iters
    call wl('MPI_Irecv')
    call MPI_IRECV(p(1, 0), n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call wl('MPI_Irecv')
    call MPI_IRECV(p(1, m + 1), n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call wl('MPI_Send')
    call MPI_SEND(p(1, m), n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
    call wl('MPI_Send')
    call MPI_SEND(p(1, 1), n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, ierr)
    call wl('MPI_Wait')
    call MPI_WAIT(req(1), status, ierr)
    call wl('MPI_Wait')
    call MPI_WAIT(req(2), status, ierr)

    do j = 1, m
      do i = 1, n
        q(i, j) = 4 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1)
      end do
    end do
    local = sum(p(1:n, 1:m) * q)
    call wl('MPI_Allreduce')
    call MPI_ALLREDUCE(local, pq, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    alpha = 0
    if (pq /= 0) alpha = rr / pq
    x = x + alpha * p(1:n, 1:m)
    r = r - alpha * q
    local = sum(r * r)
    call wl('MPI_Allreduce')
    call MPI_ALLREDUCE(local, rr_new, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    beta = 0
    if (rr /= 0) beta = rr_new / rr
    rr = rr_new
    p(1:n, 1:m) = r + beta * p(1:n, 1:m)
  end do
  call system_clock(c1)

  if (rank == 0) then
    write (0, '(A,F0.6,A)') 'fcg: loop ', dble(c1 - c0) / dble(rate), ' s'
    write (str, '(ES20.12)') sqrt(rr)
    write (*, '(A,A)') 'checksum: ', trim(adjustl(str))
    flush (6)
  end if
  call wl('MPI_Finalize')
  if (have_prefix) call wl_write(prefix, rank)
  call MPI_FINALIZE(ierr)
end program fcg
