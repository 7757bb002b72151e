# conf: rules added with its code.
