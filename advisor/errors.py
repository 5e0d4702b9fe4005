"""The one error type that the CLI turns into a single line on stderr and exit code 2."""


class UsageError(Exception):
    """Bad usage or bad input: the message names the file/field and what is expected."""

    exit_code = 2
