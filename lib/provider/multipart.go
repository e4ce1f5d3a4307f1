package provider

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// Form builds a multipart/form-data body. The zero value is not usable; use
// NewForm.
type Form struct {
	buf bytes.Buffer
	w   *multipart.Writer
	err error
}

// NewForm returns an empty form.
func NewForm() *Form {
	f := &Form{}
	f.w = multipart.NewWriter(&f.buf)
	return f
}

// Field adds a text field. Adding the same name again repeats the field,
// which is how list values are sent.
func (f *Form) Field(name, value string) {
	if f.err == nil {
		f.err = f.w.WriteField(name, value)
	}
}

// File adds a file part with the given filename and content type
// (application/octet-stream when empty).
func (f *Form) File(name, filename, contentType string, data []byte) {
	if f.err != nil {
		return
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quote(name), quote(filename)))
	h.Set("Content-Type", contentType)
	p, err := f.w.CreatePart(h)
	if err != nil {
		f.err = err
		return
	}
	_, f.err = p.Write(data)
}

// Finish closes the form and returns its body and content type.
func (f *Form) Finish() (body []byte, contentType string, err error) {
	if f.err != nil {
		return nil, "", f.err
	}
	if err := f.w.Close(); err != nil {
		return nil, "", err
	}
	return f.buf.Bytes(), f.w.FormDataContentType(), nil
}

var quoter = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func quote(s string) string { return quoter.Replace(s) }
