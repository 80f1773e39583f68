// Keeps the support library non-empty while the folder is being filled.
