# Hostile: an exception whose message holds a lone surrogate (which no encoder accepts: the
# history's sqlite write and the console raised, and the judge exited 3 with no verdict), a
# terminal escape that clears the screen and a carriage return that overwrites the line.


def solve(input, output, rows, cols):
    raise RuntimeError("bad \ud800 byte \x1b[2J\x1b[H\rACCEPTED all tests passed")
