# tests/integration: rules added with its code.
