package main

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// fakeEmbeddings is an in-process OpenAI-compatible embeddings server
// (POST /v1/embeddings {model, input, dimensions?, encoding_format} →
// {object, data[{object, index, embedding}], model, usage}, as the OpenAI
// API reference "Create embeddings" documents). Each vector is a
// normalised bag of hashed words of its input, so equal texts get equal
// vectors and shared words give similar ones; it answers at once, so
// the bench measures dir2mcp, not a network.
type fakeEmbeddings struct {
	url    string
	dim    int
	inputs atomic.Int64
	srv    *http.Server
}

// fakeKey is the API key the fake expects (never a real one).
const fakeKey = "sk-bench-fake-0000"

func startFakeEmbeddings(dim int) (*fakeEmbeddings, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fakeEmbeddings{url: "http://" + ln.Addr().String(), dim: dim}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
	return f, nil
}

func (f *fakeEmbeddings) close() { f.srv.Close() }

func (f *fakeEmbeddings) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+fakeKey {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"bad request","type":"invalid_request_error"}}`))
		return
	}
	dim := f.dim
	if req.Dimensions > 0 {
		dim = req.Dimensions
	}
	f.inputs.Add(int64(len(req.Input)))
	vec := make([]float32, dim)
	buf := make([]byte, 0, len(req.Input)*dim*11)
	buf = append(buf, `{"object":"list","data":[`...)
	tokens := 0
	for i, in := range req.Input {
		tokens += bagOfWords(in, vec)
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"object":"embedding","index":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `,"embedding":[`...)
		for j, v := range vec {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, float64(v), 'g', 6, 32)
		}
		buf = append(buf, "]}"...)
	}
	buf = append(buf, `],"model":`...)
	buf = strconv.AppendQuote(buf, req.Model)
	buf = append(buf, `,"usage":{"prompt_tokens":`...)
	buf = strconv.AppendInt(buf, int64(tokens), 10)
	buf = append(buf, `,"total_tokens":`...)
	buf = strconv.AppendInt(buf, int64(tokens), 10)
	buf = append(buf, "}}"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf)
}

// bagOfWords fills vec with the unit-length sum of ±1 at the hashed
// position of each lower-cased word of s and returns the word count.
func bagOfWords(s string, vec []float32) int {
	clear(vec)
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		vec[x%uint64(len(vec))] += sign
	}
	var n float64
	for _, v := range vec {
		n += float64(v * v)
	}
	if n == 0 {
		vec[0], n = 1, 1
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range vec {
		vec[i] *= inv
	}
	return len(words)
}
