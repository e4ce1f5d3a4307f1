package provider

import (
	"bytes"
	"context"
	"encoding/json"
)

// PostJSON sends in as a JSON body to req.Path and decodes the reply into
// out. A reply that is not valid JSON of out's shape is a non-retryable
// malformed-response error.
func (c *Client) PostJSON(ctx context.Context, req Request, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return c.fail(req, false, err, "encoding request: %v", err)
	}
	req.Body = body
	req.ContentType = "application/json"
	resp, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	return c.DecodeJSON(req, resp.Body, out)
}

// DecodeJSON decodes body into out, or returns a malformed-response error.
func (c *Client) DecodeJSON(req Request, body []byte, out any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return c.Malformed(req, "empty body")
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.Malformed(req, "%v", err)
	}
	return nil
}

// PostRaw sends in as a JSON body and returns the raw 2xx response, for
// endpoints that reply with something other than JSON (audio).
func (c *Client) PostRaw(ctx context.Context, req Request, in any) (*Response, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, c.fail(req, false, err, "encoding request: %v", err)
	}
	req.Body = body
	req.ContentType = "application/json"
	return c.Do(ctx, req)
}
