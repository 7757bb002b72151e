# tools: rules added with its code.
