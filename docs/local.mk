# docs: rules added with its code.
