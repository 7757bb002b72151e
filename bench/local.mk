# bench: rules added with its code.
