package annotate

// hlCSS is the stylesheet chroma's HTML formatter (v2.27.0, with classes
// prefixed hlPrefix) wrote for the page's style, a light one after
// GitHub's: Background #1f2328 on #f6f8fa; Keyword #cf222e; KeywordType
// #953800; KeywordConstant #0550ae; NameFunction and NameBuiltin #6639ba;
// NameOther #1f2328; LiteralString #0a3069; LiteralNumber #0550ae;
// Comment italic #57606a; Operator #1f2328; Error #82071e.
const hlCSS = `/* Background */ .hl-bg { color: #1f2328; background-color: #f6f8fa; }
/* PreWrapper */ .hl-chroma { color: #1f2328; background-color: #f6f8fa; -webkit-text-size-adjust: none; }
/* Error */ .hl-chroma .hl-err { color: #82071e }
/* LineLink */ .hl-chroma .hl-lnlinks { outline: none; text-decoration: none; color: inherit }
/* LineTableTD */ .hl-chroma .hl-lntd { vertical-align: top; padding: 0; margin: 0; border: 0; }
/* LineTable */ .hl-chroma .hl-lntable { border-spacing: 0; padding: 0; margin: 0; border: 0; }
/* LineHighlight */ .hl-chroma .hl-hl { background-color: #dddfe1 }
/* LineNumbersTable */ .hl-chroma .hl-lnt { white-space: pre; -webkit-user-select: none; user-select: none; margin-right: 0.4em; padding: 0 0.4em 0 0.4em;color: #8f9193 }
/* LineNumbers */ .hl-chroma .hl-ln { white-space: pre; -webkit-user-select: none; user-select: none; margin-right: 0.4em; padding: 0 0.4em 0 0.4em;color: #8f9193 }
/* Line */ .hl-chroma .hl-line { display: flex; }
/* Keyword */ .hl-chroma .hl-k { color: #cf222e }
/* KeywordConstant */ .hl-chroma .hl-kc { color: #0550ae }
/* KeywordDeclaration */ .hl-chroma .hl-kd { color: #cf222e }
/* KeywordNamespace */ .hl-chroma .hl-kn { color: #cf222e }
/* KeywordPseudo */ .hl-chroma .hl-kp { color: #cf222e }
/* KeywordReserved */ .hl-chroma .hl-kr { color: #cf222e }
/* KeywordType */ .hl-chroma .hl-kt { color: #953800 }
/* NameBuiltin */ .hl-chroma .hl-nb { color: #6639ba }
/* NameBuiltinPseudo */ .hl-chroma .hl-bp { color: #6639ba }
/* NameFunction */ .hl-chroma .hl-nf { color: #6639ba }
/* NameFunctionMagic */ .hl-chroma .hl-fm { color: #6639ba }
/* LiteralString */ .hl-chroma .hl-s { color: #0a3069 }
/* LiteralStringAffix */ .hl-chroma .hl-sa { color: #0a3069 }
/* LiteralStringBacktick */ .hl-chroma .hl-sb { color: #0a3069 }
/* LiteralStringChar */ .hl-chroma .hl-sc { color: #0a3069 }
/* LiteralStringDelimiter */ .hl-chroma .hl-dl { color: #0a3069 }
/* LiteralStringDoc */ .hl-chroma .hl-sd { color: #0a3069 }
/* LiteralStringDouble */ .hl-chroma .hl-s2 { color: #0a3069 }
/* LiteralStringEscape */ .hl-chroma .hl-se { color: #0a3069 }
/* LiteralStringHeredoc */ .hl-chroma .hl-sh { color: #0a3069 }
/* LiteralStringInterpol */ .hl-chroma .hl-si { color: #0a3069 }
/* LiteralStringOther */ .hl-chroma .hl-sx { color: #0a3069 }
/* LiteralStringRegex */ .hl-chroma .hl-sr { color: #0a3069 }
/* LiteralStringSingle */ .hl-chroma .hl-s1 { color: #0a3069 }
/* LiteralStringSymbol */ .hl-chroma .hl-ss { color: #0a3069 }
/* LiteralNumber */ .hl-chroma .hl-m { color: #0550ae }
/* LiteralNumberBin */ .hl-chroma .hl-mb { color: #0550ae }
/* LiteralNumberFloat */ .hl-chroma .hl-mf { color: #0550ae }
/* LiteralNumberHex */ .hl-chroma .hl-mh { color: #0550ae }
/* LiteralNumberInteger */ .hl-chroma .hl-mi { color: #0550ae }
/* LiteralNumberIntegerLong */ .hl-chroma .hl-il { color: #0550ae }
/* LiteralNumberOct */ .hl-chroma .hl-mo { color: #0550ae }
/* Comment */ .hl-chroma .hl-c { color: #57606a; font-style: italic }
/* CommentHashbang */ .hl-chroma .hl-ch { color: #57606a; font-style: italic }
/* CommentMultiline */ .hl-chroma .hl-cm { color: #57606a; font-style: italic }
/* CommentSingle */ .hl-chroma .hl-c1 { color: #57606a; font-style: italic }
/* CommentSpecial */ .hl-chroma .hl-cs { color: #57606a; font-style: italic }
/* CommentPreproc */ .hl-chroma .hl-cp { color: #57606a; font-style: italic }
/* CommentPreprocFile */ .hl-chroma .hl-cpf { color: #57606a; font-style: italic }
`
