! fstencil -- Fortran 2D 5-point Jacobi with a 1D (column-slab) decomposition
! (the pattern of legacy Fortran 77/90 stencil codes that use mpif.h).
!
! Communication: rank r owns columns of an N x (N*P) grid; neighbours r-1 and
! r+1, MPI_PROC_NULL at the two ends (not periodic). The halo columns are
! exchanged on odd steps (1st, 3rd, ...) with two MPI_SENDRECV (status array)
! and on even steps with two MPI_IRECV + two MPI_ISEND + MPI_WAITALL
! (statuses array).
! Every 5th step the squared residual is summed with MPI_ALLREDUCE, and one
! last MPI_ALLREDUCE sums the field for the checksum.
!
! Counts oracle: this program cannot use the C WL() macro, so the module
! wlcount (wlcount.f90) counts each call by its C name ("MPI_Sendrecv", ...) and
! writes PREFIX.<rank> in the same format as wl_common.c (one "MPI_Name count"
! line per function, sorted by name) when run with -c PREFIX. Per rank
! (I = iterations, same on every rank):
!   MPI_Init 1, MPI_Comm_rank 1, MPI_Comm_size 1, MPI_Sendrecv 2*ceil(I/2),
!   MPI_Irecv 2*floor(I/2), MPI_Isend 2*floor(I/2), MPI_Waitall floor(I/2),
!   MPI_Allreduce I/5 + 1, MPI_Finalize 1.
! Options: -s N (default 32), -i I (default 20), -c PREFIX.

program fstencil
  use wlcount
  implicit none
  include 'mpif.h'

  integer :: iters, n, rank, nprocs, ierr, left, right, step, i, j
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), req(4)
  character(len=4096) :: prefix
  logical :: have_prefix
  double precision, allocatable :: u(:, :), unew(:, :)
  double precision :: res, gres, total, gtotal, v
  character(len=32) :: str

  call wl('MPI_Init')
  call MPI_INIT(ierr)
  call wl('MPI_Comm_rank')
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call wl('MPI_Comm_size')
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

  iters = 20
  n = 32
  call wl_parse('wl_fstencil', rank, iters, n, prefix, have_prefix)

  left = rank - 1
  right = rank + 1
  if (rank == 0) left = MPI_PROC_NULL
  if (rank == nprocs - 1) right = MPI_PROC_NULL
  if (rank == 0) then
    write (*, '(A,I0,A,I0,A,I0,A,I0,A)') 'fstencil: ', nprocs, ' ranks, block ', n, 'x', n, ', ', iters, ' steps'
  end if

  ! u(i, j): i = row (contiguous), j = column; columns 0 and n+1 are halos.
  ! Fixed walls: row 0 (top) is hot (1.0), everything else 0.
  allocate (u(0:n + 1, 0:n + 1), unew(0:n + 1, 0:n + 1))
  u = 0.0d0
  u(0, :) = 1.0d0
  unew = u

  do step = 1, iters
    if (mod(step, 2) == 1) then
      call wl('MPI_Sendrecv')
      call MPI_SENDRECV(u(1, n), n, MPI_DOUBLE_PRECISION, right, 0, &
                        u(1, 0), n, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, status, ierr)
      call wl('MPI_Sendrecv')
      call MPI_SENDRECV(u(1, 1), n, MPI_DOUBLE_PRECISION, left, 1, &
                        u(1, n + 1), n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, status, ierr)
    else
      call wl('MPI_Irecv')
      call MPI_IRECV(u(1, 0), n, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, req(1), ierr)
      call wl('MPI_Irecv')
      call MPI_IRECV(u(1, n + 1), n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(2), ierr)
      call wl('MPI_Isend')
      call MPI_ISEND(u(1, n), n, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, req(3), ierr)
      call wl('MPI_Isend')
      call MPI_ISEND(u(1, 1), n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(4), ierr)
      call wl('MPI_Waitall')
      call MPI_WAITALL(4, req, statuses, ierr)
    end if

    res = 0.0d0
    do j = 1, n
      do i = 1, n
        v = 0.25d0*(u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        res = res + (v - u(i, j))**2
        unew(i, j) = v
      end do
    end do
    u(1:n, 1:n) = unew(1:n, 1:n)

    if (mod(step, 5) == 0) then
      call wl('MPI_Allreduce')
      call MPI_ALLREDUCE(res, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      if (rank == 0) then
        write (str, '(ES18.10)') gres
        write (*, '(A,I0,A,A)') 'step ', step, ' residual ', trim(adjustl(str))
      end if
    end if
  end do

  ! weight by global column so the checksum depends on the layout
  total = 0.0d0
  do j = 1, n
    do i = 1, n
      total = total + u(i, j)*dble(rank*n + j)
    end do
  end do
  call wl('MPI_Allreduce')
  call MPI_ALLREDUCE(total, gtotal, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (str, '(ES20.12)') gtotal
    write (*, '(A,A)') 'checksum: ', trim(adjustl(str))
    flush (6)
  end if
  deallocate (u, unew)

  call wl('MPI_Finalize')
  if (have_prefix) call wl_write(prefix, rank)
  call MPI_FINALIZE(ierr)
end program fstencil
