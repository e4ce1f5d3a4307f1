package stream

import (
	"context"
	"errors"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers of a document message saying where its bytes are.
const (
	// HdrContent is "object" (the content bucket holds the bytes under
	// HdrObject) or "path" (read Root/RelPath on a shared file system).
	HdrContent = "Dir2mcp-Content"
	HdrObject  = "Dir2mcp-Object"
)

// Content is the object-store bucket holding the bytes of the documents
// published on one subject, named by content hash, so identical files are
// stored once and a re-published document reuses its object.
type Content struct {
	obj jetstream.ObjectStore
}

// ContentBucket is the bucket of a documents subject ("d2m.docs" →
// "d2m_docs_content").
func ContentBucket(subject string) string { return StreamName(subject) + "_content" }

// Content opens (creating if missing) the content bucket of subject.
func (c *Conn) Content(ctx context.Context, subject string) (*Content, error) {
	name := ContentBucket(subject)
	var obj jetstream.ObjectStore
	err := retry(ctx, func() (err error) { obj, err = c.openBucket(ctx, name); return err })
	if err != nil {
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: object store %s: %v", name, err)
	}
	return &Content{obj: obj}, nil
}

func (c *Conn) openBucket(ctx context.Context, name string) (jetstream.ObjectStore, error) {
	obj, err := c.JS.ObjectStore(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		obj, err = c.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket: name, Storage: jetstream.FileStorage, Replicas: c.replicas(),
			Description: "dir2mcp document content by sha256",
		})
		if errors.Is(err, jetstream.ErrBucketExists) {
			obj, err = c.JS.ObjectStore(ctx, name)
		}
	}
	return obj, err
}

// ObjectName is the object key of a "sha256:<hex>" content hash.
func ObjectName(contentHash string) string { return strings.TrimPrefix(contentHash, "sha256:") }

// Put stores data under its hash unless an object of that name exists.
func (c *Content) Put(ctx context.Context, contentHash string, data []byte) error {
	name := ObjectName(contentHash)
	err := retry(ctx, func() error {
		if _, err := c.obj.GetInfo(ctx, name); err == nil {
			return nil
		}
		_, err := c.obj.PutBytes(ctx, name, data)
		return err
	})
	if err != nil {
		return errcode.Wrap(errcode.StreamUnavailable, err, "nats: store content %s: %v", name, err)
	}
	return nil
}

// Get returns the bytes stored under name. A missing object is
// FILE_NOT_FOUND.
func (c *Content) Get(ctx context.Context, name string) ([]byte, error) {
	var b []byte
	missing := false
	err := retry(ctx, func() (err error) {
		b, err = c.obj.GetBytes(ctx, name)
		if missing = errors.Is(err, jetstream.ErrObjectNotFound); missing {
			return nil
		}
		return err
	})
	if missing {
		return nil, errcode.New(errcode.FileNotFound, "content object %s is not in the bucket", name)
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: read content %s: %v", name, err)
	}
	return b, nil
}

// Info reports whether an object exists (an error if not).
func (c *Content) Info(ctx context.Context, name string) (*jetstream.ObjectInfo, error) {
	return c.obj.GetInfo(ctx, name)
}

// OpenObject reads "<bucket>/<object>" (as a representation record names
// a document's bytes).
func (c *Conn) OpenObject(ctx context.Context, ref string) ([]byte, error) {
	bucket, name, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, errcode.New(errcode.RecordInvalid, "object reference %q is not <bucket>/<object>", ref)
	}
	var obj jetstream.ObjectStore
	if err := retry(ctx, func() (err error) { obj, err = c.JS.ObjectStore(ctx, bucket); return err }); err != nil {
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: object store %s: %v", bucket, err)
	}
	return (&Content{obj: obj}).Get(ctx, name)
}
