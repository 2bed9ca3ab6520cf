package lab

import "testing"

func TestCheckLoopback(t *testing.T) {
	for ep, ok := range map[string]bool{
		"127.0.0.1:2379": true, "http://127.0.0.1:2379": true, "localhost:2379": true, "[::1]:2379": true,
		"127.9.9.9:1": true, "10.0.0.1:2379": false, "example.com:2379": false, "192.168.1.1": false,
	} {
		if err := checkLoopback([]string{ep}); (err == nil) != ok {
			t.Errorf("%s: err = %v", ep, err)
		}
	}
}
