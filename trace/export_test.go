package trace

// SetErrorShards makes the atlas answer its errors in n shards until the
// returned function restores the number.
func SetErrorShards(n int) (restore func()) {
	old := errorShards
	errorShards = n
	return func() { errorShards = old }
}

// SetUseShards makes why answer an object's uses in n shards until the
// returned function restores the number.
func SetUseShards(n int) (restore func()) {
	old := useShards
	useShards = n
	return func() { useShards = old }
}
