"""Support code every layer but the core may use: the folders the console reads and writes, reading
a file safely (regular files only, with a size cap), and garbage-collection tuning."""
