"""CuPy (GPU) kernels. Importing this package never imports CuPy; its modules do, lazily."""
