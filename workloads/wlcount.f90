! wlcount -- call counting and option parsing shared by the Fortran workloads.
!
! Fortran programs cannot use the C WL() macro, so each MPI call is preceded
! by `call wl('MPI_Name')` (the C name); wl_write writes PREFIX.<rank> in the
! same format as wl_common.c (one "MPI_Name count" line per function, sorted
! by name). Tests compare these counts with the trace.

module wlcount
  implicit none
  private
  public :: wl, wl_write, wl_parse
  integer, parameter :: maxf = 64
  character(len=32) :: names(maxf)
  integer(8) :: counts(maxf)
  integer :: nf = 0
contains
  ! Count one call of the MPI function with C name `name`.
  subroutine wl(name)
    character(len=*), intent(in) :: name
    integer :: i
    do i = 1, nf
      if (names(i) == name) then
        counts(i) = counts(i) + 1
        return
      end if
    end do
    if (nf == maxf) stop 'wlcount: too many distinct MPI functions'
    nf = nf + 1
    names(nf) = name
    counts(nf) = 1
  end subroutine wl

  ! Write "<prefix>.<rank>", sorted by name like strcmp (blank padding sorts
  ! below every character of an MPI name, so llt agrees with strcmp here).
  subroutine wl_write(prefix, rank)
    character(len=*), intent(in) :: prefix
    integer, intent(in) :: rank
    character(len=32) :: tname
    character(len=16) :: rstr
    integer(8) :: tcount
    integer :: i, j, u
    do i = 2, nf
      tname = names(i)
      tcount = counts(i)
      j = i - 1
      do while (j >= 1)
        if (.not. llt(tname, names(j))) exit
        names(j + 1) = names(j)
        counts(j + 1) = counts(j)
        j = j - 1
      end do
      names(j + 1) = tname
      counts(j + 1) = tcount
    end do
    write (rstr, '(I0)') rank
    open (newunit=u, file=trim(prefix)//'.'//trim(rstr), status='replace', action='write')
    do i = 1, nf
      write (u, '(A,1X,I0)') trim(names(i)), counts(i)
    end do
    close (u)
  end subroutine wl_write
  ! -i ITERS, -s SIZE, -c PREFIX: the options of wl_parse_args in wl_common.c.
  ! Bad options print usage (rank 0) and stop with status 2.
  subroutine wl_parse(progname, rank, iters, n, prefix, have_prefix)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: progname
    integer, intent(in) :: rank
    integer, intent(inout) :: iters, n
    character(len=*), intent(out) :: prefix
    logical, intent(out) :: have_prefix
    character(len=4096) :: arg
    integer :: nargs, k, ierr
    have_prefix = .false.
    prefix = ''
    nargs = command_argument_count()
    k = 1
    do while (k <= nargs)
      call get_command_argument(k, arg)
      if (k == nargs .or. (arg /= '-i' .and. arg /= '-s' .and. arg /= '-c')) then
        if (rank == 0) write (error_unit, '(A)') 'usage: '//progname//' [-i iters] [-s size] [-c counts_prefix]'
        stop 2
      end if
      select case (trim(arg))
      case ('-i')
        call get_command_argument(k + 1, arg)
        read (arg, *, iostat=ierr) iters
        if (ierr /= 0) iters = 0
      case ('-s')
        call get_command_argument(k + 1, arg)
        read (arg, *, iostat=ierr) n
        if (ierr /= 0) n = 0
      case ('-c')
        call get_command_argument(k + 1, prefix)
        have_prefix = .true.
      end select
      k = k + 2
    end do
    if (iters < 1 .or. n < 1) then
      if (rank == 0) write (error_unit, '(A)') progname//': -i and -s must be positive'
      stop 2
    end if
  end subroutine wl_parse
end module wlcount
