// Markdown the incremental renderer must get right: the constructs whose blocks span blank lines or depend on
// the lines after them, and a long reply shaped like benchmarks/widget_stream.py's.

/** ~`size` characters of headings, paragraphs, loose lists, tables, code, quotes and math. @param {number} size */
export function longReply(size) {
  const parts = [];
  let length = 0;
  for (let n = 1; length < size; n += 1) {
    const part =
      `## Section ${n}\n\n` +
      `Paragraph ${n} with **bold**, \`inline code\`, a [link](https://example.com/${n}) and $x_${n}^2$. ` +
      "The quick brown fox jumps over the lazy dog, again and again, to make the text long enough.\n\n" +
      `- item one of ${n}\n- item two with \`code\`\n\n  continued item two\n- item three\n\n` +
      `| column | value |\n|---|---|\n| a${n} | ${n * 3} |\n| b${n} | ${n * 7} |\n\n` +
      `\`\`\`python\ndef step_${n}(frame, scale=${n}):\n    """Scale and summarise."""\n` +
      "    result = frame.assign(value=frame['value'] * scale)\n\n" +
      "    return result.groupby('key').agg(['mean', 'max'])\n```\n\n" +
      `> Note ${n}: a quote that spans\n> two lines.\n\n` +
      `$$\n\\sum_{i=1}^{${n}} i = \\frac{${n}(${n}+1)}{2}\n$$\n\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

export const TRICKY = {
  "loose list with blank lines between items":
    "Intro:\n\n- one\n\n- two\n\n  still two\n\n- three\n\nAfter the list.\n",
  "loose ordered lists (each next marker arrives after a blank line)":
    "1. one\n\n2. two\n\n   more of two\n\n10. ten\n\nAfter.\n\n7) seven\n\n8) eight\n\n42\n",
  "ordered list then a paragraph, then another list":
    "3. three\n4. four\n\n   continued\n\nplain\n\n1. again\n2. more\n",
  "nested lists": "- a\n  - a1\n\n  - a2\n- b\n\n    code in b\n\nend",
  "table then paragraph": "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nText after.\n\n| x |\n|---|\n| y |",
  "fenced code with blank lines inside": "Text.\n\n```js\nconst a = 1;\n\n\nconst b = 2;\n```\n\n~~~\n```\nnot closed\n\n~~~\nafter",
  "unclosed fence at the end": "Start.\n\n```python\ndef f():\n\n    return 1\n",
  "indented code with blank lines": "Para.\n\n    code 1\n\n    code 2\n\nPara 2.\n",
  "setext headings and rules": "Title\n=====\n\nSub\n---\n\ntext\n\n---\n\n***\nmore\n- - -\n",
  // marked reads a paragraph, then items whose marker is indented, up to an underline as one heading
  "a paragraph and a list with indented markers that an underline makes one heading":
    "Steps:\n - one\n - two\n---\n\nPlan\n 1. first\n 2) second\n===\n\nKept apart\n - item\n\n---\n",
  "quotes with lazy lines, nested quotes, math and headings inside":
    "> Quote\nlazy line\n> > nested\n> back\n>\n> $$\n> x\n>\n> y\n> $$\n>\n> Head\n>  - item\n> ===\n>\n> end\n\nAfter.\n",
  "blockquotes with lazy lines": "> quote\nlazy line\n\n> second\n>\n> para in quote\n\nout",
  "display and inline math": "Inline $a+b$ here.\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n$$\nx\n\ny\n$$\n\nEnd $c$.",
  "headings and emphasis": "# H1\n## H2 ##\n\n*em* and __strong__\nacross lines\n\n#not a heading\n\n###### six",
  "escapes and entities": "\\*not em\\* &amp; &copy; `code with <tag>`\n\n<not closed\n\n5 < 6 > 4",
  "task lists and strikethrough": "- [ ] todo\n- [x] done\n\n~~gone~~ and www.example.com autolink\n",
};
