package vector
