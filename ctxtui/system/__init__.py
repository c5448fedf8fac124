"""What touches the machine: safe output files, the native export, the heap."""
