package chunk

// KeyPrefix begins the key of every object the block store writes: the
// objects of a volume are those listed under it.
const KeyPrefix = "chunks/"

// SliceKeys names the objects that hold a slice of size bytes on a volume
// of blockSize blocks, in order: what 'cairn info' shows of a file.
func SliceKeys(id uint64, size uint32, blockSize int) []string {
	var keys []string
	for i := 0; int64(i)*int64(blockSize) < int64(size); i++ {
		keys = append(keys, blockKey(id, i, blockLen(size, blockSize, i)))
	}
	return keys
}
