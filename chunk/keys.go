package chunk

// KeyPrefix begins the key of every object the block store writes: the
// objects of a volume are those listed under it.
const KeyPrefix = "chunks/"
