# mib: rules added with its code.
