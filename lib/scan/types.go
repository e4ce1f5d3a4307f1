package scan

import "github.com/dir2mcp/dir2mcp/lib/record"

// class is what a file name or content says a document is.
type class struct {
	docType string
	lang    string // for code only
}

func code(lang string) class { return class{record.DocCode, lang} }

var (
	clsText    = class{docType: record.DocText}
	clsMD      = class{docType: record.DocMarkdown}
	clsData    = class{docType: record.DocData}
	clsHTML    = class{docType: record.DocHTML}
	clsPDF     = class{docType: record.DocPDF}
	clsImage   = class{docType: record.DocImage}
	clsAudio   = class{docType: record.DocAudio}
	clsArchive = class{docType: record.DocArchive}
	clsBinary  = class{docType: record.DocBinaryIgnored}
)

// byExt maps a lower-case extension (with the dot) to a class. Decisions
// worth noting: .proto/.thrift/.graphql are interface definitions searched
// like code; .s/.S/.asm are assembly (code); .svg is XML text (data), not an
// image to OCR; video containers are binary_ignored (no speech extraction
// from video); .mod and .sum are data only as go.mod/go.sum (see byName).
var byExt = map[string]class{
	// code
	".go": code("go"), ".py": code("python"), ".pyw": code("python"), ".pyi": code("python"),
	".js": code("javascript"), ".mjs": code("javascript"), ".cjs": code("javascript"), ".jsx": code("javascript"),
	".ts": code("typescript"), ".tsx": code("typescript"), ".mts": code("typescript"), ".cts": code("typescript"),
	".rs": code("rust"), ".java": code("java"), ".c": code("c"), ".h": code("c"),
	".cc": code("cpp"), ".cpp": code("cpp"), ".cxx": code("cpp"), ".c++": code("cpp"), ".hpp": code("cpp"),
	".hh": code("cpp"), ".hxx": code("cpp"), ".h++": code("cpp"), ".ipp": code("cpp"), ".inl": code("cpp"),
	".cs": code("csharp"), ".csx": code("csharp"), ".rb": code("ruby"), ".rake": code("ruby"), ".gemspec": code("ruby"),
	".php": code("php"), ".sh": code("shell"), ".bash": code("shell"), ".zsh": code("shell"), ".ksh": code("shell"),
	".fish": code("shell"), ".kt": code("kotlin"), ".kts": code("kotlin"), ".swift": code("swift"),
	".scala": code("scala"), ".sc": code("scala"), ".sql": code("sql"), ".lua": code("lua"),
	".pl": code("perl"), ".pm": code("perl"), ".r": code("r"), ".m": code("objectivec"), ".mm": code("objectivec"),
	".dart": code("dart"), ".ex": code("elixir"), ".exs": code("elixir"), ".erl": code("erlang"), ".hrl": code("erlang"),
	".hs": code("haskell"), ".ml": code("ocaml"), ".mli": code("ocaml"), ".fs": code("fsharp"), ".fsx": code("fsharp"),
	".clj": code("clojure"), ".cljs": code("clojure"), ".cljc": code("clojure"), ".el": code("elisp"),
	".lisp": code("lisp"), ".scm": code("scheme"), ".rkt": code("racket"), ".jl": code("julia"), ".nim": code("nim"),
	".zig": code("zig"), ".vhd": code("vhdl"), ".vhdl": code("vhdl"), ".sv": code("systemverilog"), ".svh": code("systemverilog"),
	".groovy": code("groovy"), ".gradle": code("groovy"), ".ps1": code("powershell"), ".psm1": code("powershell"),
	".bat": code("batch"), ".cmd": code("batch"), ".vb": code("vbnet"), ".pas": code("pascal"),
	".f": code("fortran"), ".f90": code("fortran"), ".f95": code("fortran"), ".f03": code("fortran"), ".for": code("fortran"),
	".s": code("assembly"), ".asm": code("assembly"), ".cr": code("crystal"), ".elm": code("elm"),
	".vue": code("vue"), ".svelte": code("svelte"), ".coffee": code("coffeescript"), ".tf": code("hcl"), ".tfvars": code("hcl"),
	".hcl": code("hcl"), ".proto": code("protobuf"), ".thrift": code("thrift"), ".graphql": code("graphql"), ".gql": code("graphql"),
	".sol": code("solidity"), ".cmake": code("cmake"), ".mk": code("make"), ".mak": code("make"), ".awk": code("awk"),
	".tcl": code("tcl"), ".vim": code("vim"), ".wat": code("wat"), ".cu": code("cuda"), ".cuh": code("cuda"),
	".glsl": code("glsl"), ".hlsl": code("hlsl"), ".bzl": code("starlark"), ".star": code("starlark"),
	".nix": code("nix"), ".ino": code("cpp"), ".ipynb": clsData,
	// markdown
	".md": clsMD, ".markdown": clsMD, ".mdown": clsMD, ".mkd": clsMD, ".mdx": clsMD,
	// html
	".html": clsHTML, ".htm": clsHTML, ".xhtml": clsHTML,
	// data
	".json": clsData, ".jsonl": clsData, ".ndjson": clsData, ".json5": clsData, ".jsonc": clsData,
	".yaml": clsData, ".yml": clsData, ".toml": clsData, ".csv": clsData, ".tsv": clsData,
	".xml": clsData, ".xsd": clsData, ".xsl": clsData, ".xslt": clsData, ".plist": clsData, ".svg": clsData,
	".ini": clsData, ".cfg": clsData, ".conf": clsData, ".properties": clsData, ".env": clsData, ".lock": clsData,
	// text
	".txt": clsText, ".text": clsText, ".log": clsText, ".rst": clsText, ".adoc": clsText, ".asciidoc": clsText,
	".org": clsText, ".tex": clsText, ".bib": clsText, ".rtf": clsText, ".srt": clsText, ".vtt": clsText,
	".diff": clsText, ".patch": clsText, ".txtar": clsText, ".golden": clsText, ".tmpl": clsText, ".tpl": clsText,
	".pem": clsText, ".crt": clsText, ".csr": clsText, ".pub": clsText, ".asc": clsText,
	// pdf, image, audio, archive
	".pdf": clsPDF,
	".png": clsImage, ".jpg": clsImage, ".jpeg": clsImage, ".gif": clsImage, ".webp": clsImage, ".bmp": clsImage,
	".tif": clsImage, ".tiff": clsImage, ".heic": clsImage, ".heif": clsImage, ".avif": clsImage, ".ico": clsImage,
	".mp3": clsAudio, ".wav": clsAudio, ".ogg": clsAudio, ".oga": clsAudio, ".opus": clsAudio, ".flac": clsAudio,
	".m4a": clsAudio, ".aac": clsAudio, ".wma": clsAudio, ".aif": clsAudio, ".aiff": clsAudio,
	".zip": clsArchive, ".tar": clsArchive, ".tgz": clsArchive, ".gz": clsArchive, ".bz2": clsArchive, ".xz": clsArchive,
	".zst": clsArchive, ".7z": clsArchive, ".rar": clsArchive, ".jar": clsArchive,
	// binary, never read
	".exe": clsBinary, ".dll": clsBinary, ".so": clsBinary, ".dylib": clsBinary, ".a": clsBinary, ".o": clsBinary,
	".obj": clsBinary, ".lib": clsBinary, ".class": clsBinary, ".pyc": clsBinary, ".pyo": clsBinary, ".wasm": clsBinary,
	".db": clsBinary, ".sqlite": clsBinary, ".sqlite3": clsBinary, ".iso": clsBinary, ".dmg": clsBinary,
	".woff": clsBinary, ".woff2": clsBinary, ".ttf": clsBinary, ".otf": clsBinary, ".eot": clsBinary, ".psd": clsBinary,
	".mp4": clsBinary, ".m4v": clsBinary, ".mov": clsBinary, ".mkv": clsBinary, ".avi": clsBinary, ".webm": clsBinary,
	".bin": clsBinary, ".syso": clsBinary, ".xcf": clsBinary,
}

// byName maps exact file names to a class; it wins over the extension.
var byName = map[string]class{
	"Makefile": code("make"), "makefile": code("make"), "GNUmakefile": code("make"),
	"Dockerfile": code("dockerfile"), "Containerfile": code("dockerfile"), "CMakeLists.txt": code("cmake"),
	"Jenkinsfile": code("groovy"), "Rakefile": code("ruby"), "Gemfile": code("ruby"), "Vagrantfile": code("ruby"),
	"Podfile": code("ruby"), "Brewfile": code("ruby"), "Fastfile": code("ruby"), "Guardfile": code("ruby"),
	"BUILD": code("starlark"), "BUILD.bazel": code("starlark"), "WORKSPACE": code("starlark"),
	"WORKSPACE.bazel": code("starlark"), "MODULE.bazel": code("starlark"),
	".bashrc": code("shell"), ".bash_profile": code("shell"), ".bash_logout": code("shell"), ".profile": code("shell"),
	".zshrc": code("shell"), ".zprofile": code("shell"), ".zshenv": code("shell"), ".envrc": code("shell"),
	"go.mod": clsData, "go.sum": clsData, "go.work": clsData, "go.work.sum": clsData, "Procfile": clsData,
	".gitmodules": clsData, ".npmrc": clsData, ".yarnrc": clsData, ".env": clsData, "Pipfile": clsData,
	".gitignore": clsText, ".gitattributes": clsText, ".dockerignore": clsText, ".npmignore": clsText,
	".editorconfig": clsData, ".mailmap": clsText, "CODEOWNERS": clsText, "OWNERS": clsText,
}

// textNames are upper-case base names (before any extension) of prose files
// that often come without an extension: LICENSE, README, AUTHORS, ...
var textNames = map[string]bool{
	"LICENSE": true, "LICENCE": true, "COPYING": true, "NOTICE": true, "AUTHORS": true, "CONTRIBUTORS": true,
	"PATENTS": true, "VERSION": true, "CHANGELOG": true, "CHANGES": true, "INSTALL": true, "README": true,
	"TODO": true, "HISTORY": true, "NEWS": true, "THANKS": true, "MAINTAINERS": true, "SECURITY": true,
}

// interpreters maps a shebang interpreter (version digits stripped) to a
// language.
var interpreters = map[string]string{
	"sh": "shell", "bash": "shell", "zsh": "shell", "ksh": "shell", "dash": "shell", "ash": "shell", "rc": "shell",
	"fish": "shell", "python": "python", "pypy": "python", "node": "javascript", "nodejs": "javascript",
	"deno": "typescript", "bun": "javascript", "ts-node": "typescript", "tsx": "typescript", "ruby": "ruby",
	"perl": "perl", "php": "php", "rscript": "r", "lua": "lua", "luajit": "lua", "tclsh": "tcl", "wish": "tcl",
	"awk": "awk", "gawk": "awk", "groovy": "groovy", "scala": "scala", "swift": "swift", "pwsh": "powershell",
	"julia": "julia", "elixir": "elixir", "escript": "erlang", "go": "go", "gorun": "go", "make": "make",
}
