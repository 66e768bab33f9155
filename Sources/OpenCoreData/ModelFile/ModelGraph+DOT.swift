import Foundation

// MARK: - Graphviz DOT

extension ModelGraph {
    /// The graph in Graphviz's DOT language, with HTML-like labels for the entity boxes.
    ///
    /// See <https://graphviz.org/doc/info/lang.html> and <https://graphviz.org/doc/info/shapes.html#html>.
    func dot() -> String {
        var text = "digraph \(Self.quoted(options.title ?? "model")) {\n"
        text += "    graph [rankdir=BT, nodesep=0.6, ranksep=0.8, fontname=\"Helvetica\""
        if let title = options.title { text += ", label=\(Self.quoted(title)), labelloc=t, fontsize=16" }
        text += "];\n"
        text += "    node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];\n"
        text += "    edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n"

        if !nodes.isEmpty { text += "\n" }
        for node in nodes {
            text += "    \(Self.quoted(node.name)) [label=<\(htmlLabel(for: node))>];\n"
        }

        if !inheritance.isEmpty { text += "\n    // Inheritance: subentity -> parent\n" }
        for edge in inheritance {
            text += "    \(Self.quoted(nodes[edge.child].name)) -> \(Self.quoted(nodes[edge.parent].name))"
            text += " [arrowhead=empty, arrowsize=1.2, weight=4];\n"
        }

        if !relationships.isEmpty { text += "\n    // Relationships: the name and cardinality at each end is the relationship that points there\n" }
        for edge in relationships {
            var attributes = ["headlabel=\(Self.quoted(edge.forward.name + "\n" + edge.forward.cardinality))"]
            if let inverse = edge.inverse {
                attributes.append("taillabel=\(Self.quoted(inverse.name + "\n" + inverse.cardinality))")
                attributes.append("dir=none")
            } else {
                attributes.append("arrowhead=vee")
            }
            // Keep relationships from pulling the inheritance layout apart.
            attributes.append("constraint=false")
            attributes.append("labeldistance=2")
            text += "    \(Self.quoted(nodes[edge.tail].name)) -> \(Self.quoted(nodes[edge.head].name)) [\(attributes.joined(separator: ", "))];\n"
        }
        text += "}\n"
        return text
    }

    /// A table: the entity name in bold on a tinted row, the subtitle in italics, then the properties.
    private func htmlLabel(for node: Node) -> String {
        var label = #"<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="4">"#
        var title = "<B>\(Self.xmlEscaped(node.name))</B>"
        if let subtitle = node.subtitle { title += #"<BR/><FONT POINT-SIZE="9"><I>"# + Self.xmlEscaped(subtitle) + "</I></FONT>" }
        label += ##"<TR><TD BGCOLOR="#DCE6F2">"## + title + "</TD></TR>"
        if !node.lines.isEmpty {
            let lines = node.lines.map(Self.xmlEscaped).joined(separator: #"<BR ALIGN="LEFT"/>"#)
            label += #"<TR><TD ALIGN="LEFT" BALIGN="LEFT">"# + lines + #"<BR ALIGN="LEFT"/></TD></TR>"#
        }
        return label + "</TABLE>"
    }

    /// A DOT double-quoted string: `"` and `\` escaped (so no `\N`-style escapes), newlines as `\n`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": continue
            default: result.append(character)
            }
        }
        return result + "\""
    }

    /// Text for XML (SVG) and Graphviz HTML-like labels: `& < > " '` as entities, control characters dropped.
    static func xmlEscaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t": result += " "
            // Not allowed in XML 1.0.
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
