# agent: rules added with its code.
