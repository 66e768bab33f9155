import Foundation

// MARK: - SVG without Graphviz

extension ModelGraph {
    /// Sizes, in SVG user units (pixels).
    private enum Metrics {
        static let fontSize = 12.0
        /// The advance of one character of the monospaced font, about 0.6 em.
        static let characterWidth = 7.2
        static let lineHeight = 16.0
        static let padding = 8.0
        static let minimumBoxWidth = 110.0
        static let treeGap = 120.0
        /// Between sibling subentities.
        static let siblingGap = 100.0
        static let levelGap = 70.0
        static let rowGap = 100.0
        static let margin = 24.0
        /// Room on the right for self-relationship loops.
        static let loopRoom = 70.0
        static let titleHeight = 34.0
        /// The distance between parallel edges joining the same two boxes.
        static let parallelGap = 24.0
        /// The width to height ratio the rows of trees aim for.
        static let aspectRatio = 2.0
    }

    /// Where a box is: its top-left corner and size.
    private struct Box {
        var x = 0.0, y = 0.0, width = 0.0, height = 0.0
        var headerHeight = 0.0
        var midX: Double { x + width / 2 }
        var midY: Double { y + height / 2 }
        var maxX: Double { x + width }
        var maxY: Double { y + height }
    }

    func svg() -> String {
        var boxes = nodes.map(Self.measure)
        let (width, height) = layOut(&boxes)
        let top = options.title == nil ? 0 : Metrics.titleHeight
        for index in boxes.indices { boxes[index].y += top }

        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.number(width))" height="\(Self.number(height + top))" \
            viewBox="0 0 \(Self.number(width)) \(Self.number(height + top))" \
            font-family="Menlo, Consolas, 'DejaVu Sans Mono', monospace" font-size="\(Self.number(Metrics.fontSize))">

            """
        svg += "  <title>\(Self.xmlEscaped(options.title ?? "Core Data model"))</title>\n"
        svg += """
              <defs>
                <marker id="inherits" viewBox="0 0 12 12" refX="11" refY="6" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse" orient="auto">
                  <path d="M1,1 L11,6 L1,11 Z" fill="#ffffff" stroke="#333333"/>
                </marker>
                <marker id="navigates" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto">
                  <path d="M1,1 L9,5 L1,9" fill="none" stroke="#555555"/>
                </marker>
              </defs>
              <rect width="100%" height="100%" fill="#ffffff"/>

            """
        if let title = options.title {
            svg += "  <text x=\"\(Self.number(Metrics.margin))\" y=\"\(Self.number(Metrics.margin + 4))\" font-size=\"16\" font-weight=\"bold\">\(Self.xmlEscaped(title))</text>\n"
        }

        // Edges first, so boxes hide the parts of lines that cross them; labels last, on top.
        var labels: [String] = []
        svg += "  <g fill=\"none\" stroke=\"#555555\" stroke-width=\"1.2\">\n"
        for edge in inheritance {
            svg += "    " + inheritancePath(from: boxes[edge.child], to: boxes[edge.parent]) + "\n"
        }
        for (position, edge) in relationships.enumerated() {
            svg += "    " + relationshipPath(edge, offset: parallelOffset(of: position), boxes: boxes, labels: &labels) + "\n"
        }
        svg += "  </g>\n"
        for (node, box) in zip(nodes, boxes) { svg += Self.entity(node, box) }
        if !labels.isEmpty {
            svg += "  <g font-size=\"10\" fill=\"#333333\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">\n"
            for label in labels { svg += "    " + label + "\n" }
            svg += "  </g>\n"
        }
        return svg + "</svg>\n"
    }

    // MARK: - Measuring

    private static func measure(_ node: Node) -> Box {
        func width(_ text: String, scale: Double = 1) -> Double { Double(text.count) * Metrics.characterWidth * scale }
        var contentWidth = width(node.name, scale: 1.1)
        if let subtitle = node.subtitle { contentWidth = max(contentWidth, width(subtitle, scale: 10 / 12)) }
        for line in node.lines { contentWidth = max(contentWidth, width(line)) }
        var box = Box()
        box.width = max(Metrics.minimumBoxWidth, (contentWidth + 2 * Metrics.padding).rounded(.up))
        box.headerHeight = Metrics.lineHeight * (node.subtitle == nil ? 1 : 2) + Metrics.padding
        box.height = box.headerHeight + (node.lines.isEmpty ? 0 : Double(node.lines.count) * Metrics.lineHeight + Metrics.padding)
        return box
    }

    // MARK: - Layout

    /// Places the boxes: each inheritance tree parent above children, trees ordered so related
    /// entities are neighbours and packed in rows. Returns the picture's size.
    private func layOut(_ boxes: inout [Box]) -> (width: Double, height: Double) {
        var children = [[Int]](repeating: [], count: nodes.count)
        var hasParent = [Bool](repeating: false, count: nodes.count)
        for edge in inheritance {
            children[edge.parent].append(edge.child)
            hasParent[edge.child] = true
        }
        // Every node is in exactly one tree: the loader rejects inheritance cycles, and a node in
        // one anyway (a model built in code) is treated as a root.
        var visited = [Bool](repeating: false, count: nodes.count)
        var trees: [Int] = []
        for root in nodes.indices where !hasParent[root] {
            trees.append(root)
            markTree(root, children: children, visited: &visited)
        }
        for node in nodes.indices where !visited[node] {
            trees.append(node)
            markTree(node, children: children, visited: &visited)
        }

        // Size and lay out each tree at the origin.
        var subtreeWidth = [Double](repeating: 0, count: nodes.count)
        for root in trees { measureSubtree(root, children: children, boxes: boxes, widths: &subtreeWidth) }
        var treeOf = [Int](repeating: 0, count: nodes.count)
        var treeHeight: [Int: Double] = [:]
        for root in trees {
            placeSubtree(root, x: 0, y: 0, children: children, widths: subtreeWidth, boxes: &boxes)
            var members: [Int] = []
            collect(root, children: children, into: &members)
            for member in members { treeOf[member] = root }
            treeHeight[root] = members.map { boxes[$0].maxY }.max() ?? 0
        }

        // Pack the trees in rows, in an order that keeps related trees together.
        let order = treeOrder(trees, treeOf: treeOf)
        let area = trees.reduce(0.0) { $0 + (subtreeWidth[$1] + Metrics.treeGap) * ((treeHeight[$1] ?? 0) + Metrics.rowGap) }
        let rowWidth = max(trees.map { subtreeWidth[$0] }.max() ?? 0, (area * Metrics.aspectRatio).squareRoot().rounded())
        var x = Metrics.margin, y = Metrics.margin, rowHeight = 0.0, width = 0.0
        for root in order {
            let treeWidth = subtreeWidth[root]
            if x > Metrics.margin, x + treeWidth > Metrics.margin + rowWidth {
                x = Metrics.margin
                y += rowHeight + Metrics.rowGap
                rowHeight = 0
            }
            var members: [Int] = []
            collect(root, children: children, into: &members)
            for member in members {
                boxes[member].x += x
                boxes[member].y += y
            }
            x += treeWidth + Metrics.treeGap
            rowHeight = max(rowHeight, treeHeight[root] ?? 0)
            width = max(width, x - Metrics.treeGap)
        }
        return (max(width, Metrics.margin) + Metrics.margin + Metrics.loopRoom, y + rowHeight + Metrics.margin)
    }

    private func markTree(_ node: Int, children: [[Int]], visited: inout [Bool]) {
        guard !visited[node] else { return }
        visited[node] = true
        for child in children[node] { markTree(child, children: children, visited: &visited) }
    }

    private func collect(_ node: Int, children: [[Int]], into members: inout [Int]) {
        guard !members.contains(node) else { return }
        members.append(node)
        for child in children[node] { collect(child, children: children, into: &members) }
    }

    private func measureSubtree(_ node: Int, children: [[Int]], boxes: [Box], widths: inout [Double], depth: Int = 0) {
        guard widths[node] == 0, depth < nodes.count else { return }
        var childrenWidth = 0.0
        for child in children[node] {
            measureSubtree(child, children: children, boxes: boxes, widths: &widths, depth: depth + 1)
            childrenWidth += widths[child]
        }
        if !children[node].isEmpty { childrenWidth += Metrics.siblingGap * Double(children[node].count - 1) }
        widths[node] = max(boxes[node].width, childrenWidth)
    }

    /// Puts a node centred over its children, within `widths[node]` starting at `x`.
    private func placeSubtree(_ node: Int, x: Double, y: Double, children: [[Int]], widths: [Double],
                              boxes: inout [Box], depth: Int = 0) {
        guard depth < nodes.count else { return }
        boxes[node].x = (x + (widths[node] - boxes[node].width) / 2).rounded()
        boxes[node].y = y
        let kids = children[node]
        guard !kids.isEmpty else { return }
        let kidsWidth = kids.reduce(0.0) { $0 + widths[$1] } + Metrics.siblingGap * Double(kids.count - 1)
        var childX = x + (widths[node] - kidsWidth) / 2
        for child in kids {
            placeSubtree(child, x: childX, y: y + boxes[node].height + Metrics.levelGap, children: children,
                         widths: widths, boxes: &boxes, depth: depth + 1)
            childX += widths[child] + Metrics.siblingGap
        }
    }

    /// Trees in breadth-first order over the relationships, starting from the most connected tree,
    /// so that related entities end up side by side. Ties go by name, so the order is stable.
    private func treeOrder(_ trees: [Int], treeOf: [Int]) -> [Int] {
        var neighbours: [Int: Set<Int>] = [:]
        for edge in relationships {
            let (a, b) = (treeOf[edge.tail], treeOf[edge.head])
            guard a != b else { continue }
            neighbours[a, default: []].insert(b)
            neighbours[b, default: []].insert(a)
        }
        let byName = { (a: Int, b: Int) in nodes[a].name < nodes[b].name }
        var remaining = Set(trees)
        var order: [Int] = []
        while !remaining.isEmpty {
            let start = remaining.sorted(by: byName).max { (neighbours[$0]?.count ?? 0) < (neighbours[$1]?.count ?? 0) }!
            var queue = [start]
            remaining.remove(start)
            while !queue.isEmpty {
                let tree = queue.removeFirst()
                order.append(tree)
                for next in (neighbours[tree] ?? []).filter(remaining.contains).sorted(by: byName) {
                    remaining.remove(next)
                    queue.append(next)
                }
            }
        }
        return order
    }

    // MARK: - Edges

    /// An elbow from the child's top to the parent's bottom, ending in a hollow triangle.
    private func inheritancePath(from child: Box, to parent: Box) -> String {
        let start = (child.midX, child.y)
        let end = (parent.midX, parent.maxY)
        let middle = ((start.1 + end.1) / 2).rounded()
        let d = "M\(Self.number(start.0)),\(Self.number(start.1)) V\(Self.number(middle)) H\(Self.number(end.0)) V\(Self.number(end.1))"
        return "<path d=\"\(d)\" stroke=\"#333333\" marker-end=\"url(#inherits)\"/>"
    }

    /// How far a relationship edge is moved sideways so that edges between the same two boxes
    /// don't overlap: 0 for the only one, ±gap/2 for two, …
    private func parallelOffset(of position: Int) -> Double {
        let edge = relationships[position]
        let key = (min(edge.tail, edge.head), max(edge.tail, edge.head))
        let siblings = relationships.indices.filter {
            (min(relationships[$0].tail, relationships[$0].head), max(relationships[$0].tail, relationships[$0].head)) == key
        }
        let rank = Double(siblings.firstIndex(of: position) ?? 0)
        return (rank - Double(siblings.count - 1) / 2) * Metrics.parallelGap
    }

    /// A straight line between the boxes' borders (a loop for a self-relationship), and its end labels.
    private func relationshipPath(_ edge: RelationshipEdge, offset: Double, boxes: [Box], labels: inout [String]) -> String {
        let marker = edge.inverse == nil ? " marker-end=\"url(#navigates)\"" : ""
        if edge.tail == edge.head {
            let box = boxes[edge.tail]
            let spread = 14 + abs(offset) + offset
            let y1 = box.y + box.headerHeight / 2
            let y2 = min(box.maxY - 4, y1 + 2 * spread + 12)
            let reach = box.maxX + 36 + spread
            let d = "M\(Self.number(box.maxX)),\(Self.number(y1)) C\(Self.number(reach)),\(Self.number(y1)) \(Self.number(reach)),\(Self.number(y2)) \(Self.number(box.maxX)),\(Self.number(y2))"
            labels.append(Self.label(edge.forward.label, x: box.maxX + 6, y: y2 + 13, anchor: "start"))
            if let inverse = edge.inverse { labels.append(Self.label(inverse.label, x: box.maxX + 6, y: y1 - 5, anchor: "start")) }
            return "<path d=\"\(d)\"\(marker)/>"
        }
        let tail = boxes[edge.tail], head = boxes[edge.head]
        // Offsets are measured along the normal of the lower-numbered box to the other, so edges
        // in opposite directions between the same boxes are spread apart too.
        let offset = edge.tail < edge.head ? offset : -offset
        var dx = head.midX - tail.midX, dy = head.midY - tail.midY
        let length = max((dx * dx + dy * dy).squareRoot(), 1)
        dx /= length
        dy /= length
        // The sideways shift, perpendicular to the line.
        let (nx, ny) = (-dy * offset, dx * offset)
        let start = Self.border(of: tail, from: (tail.midX + nx, tail.midY + ny), direction: (dx, dy))
        let end = Self.border(of: head, from: (head.midX + nx, head.midY + ny), direction: (-dx, -dy))
        // Labels of parallel edges go on their outer sides; a lone edge's labels on opposite sides.
        let side: Double? = offset == 0 ? nil : (offset > 0 ? 1 : -1)
        labels.append(Self.endLabel(edge.forward.label, at: end, direction: (-dx, -dy), side: side.map { -$0 }))
        if let inverse = edge.inverse { labels.append(Self.endLabel(inverse.label, at: start, direction: (dx, dy), side: side)) }
        let d = "M\(Self.number(start.0)),\(Self.number(start.1)) L\(Self.number(end.0)),\(Self.number(end.1))"
        return "<path d=\"\(d)\"\(marker)/>"
    }

    /// Where a ray from a point inside a box leaves the box.
    private static func border(of box: Box, from point: (Double, Double), direction: (Double, Double)) -> (Double, Double) {
        var t = Double.infinity
        if direction.0 > 0 { t = min(t, (box.maxX - point.0) / direction.0) }
        if direction.0 < 0 { t = min(t, (box.x - point.0) / direction.0) }
        if direction.1 > 0 { t = min(t, (box.maxY - point.1) / direction.1) }
        if direction.1 < 0 { t = min(t, (box.y - point.1) / direction.1) }
        if !t.isFinite || t < 0 { t = 0 }
        return (point.0 + direction.0 * t, point.1 + direction.1 * t)
    }

    /// A label just outside a box, beside the line leaving it in `direction`: on the side that
    /// turns clockwise on screen (`side` 1), or the other (-1).
    private static func endLabel(_ text: String, at point: (Double, Double), direction: (Double, Double), side: Double? = nil) -> String {
        let along = 10.0, aside = 9.0 * (side ?? 1)
        let x = point.0 + direction.0 * along - direction.1 * aside
        let y = point.1 + direction.1 * along + direction.0 * aside + 4
        let anchor = abs(direction.0) < 0.3 ? (direction.1 > 0 ? "start" : "end") : (direction.0 > 0 ? "start" : "end")
        return label(text, x: x, y: y, anchor: anchor)
    }

    private static func label(_ text: String, x: Double, y: Double, anchor: String) -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" text-anchor=\"\(anchor)\">\(xmlEscaped(text))</text>"
    }

    // MARK: - Boxes

    private static func entity(_ node: Node, _ box: Box) -> String {
        let x = number(box.x), y = number(box.y), width = number(box.width)
        var svg = "  <g>\n    <title>\(xmlEscaped(node.name))</title>\n"
        svg += "    <rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(number(box.height))\" rx=\"4\" fill=\"#ffffff\" stroke=\"#4a6785\"/>\n"
        svg += "    <path d=\"M\(x),\(number(box.y + box.headerHeight)) h\(width)\" stroke=\"#4a6785\"/>\n"
        svg += "    <rect x=\"\(number(box.x + 0.5))\" y=\"\(number(box.y + 0.5))\" width=\"\(number(box.width - 1))\" height=\"\(number(box.headerHeight - 1))\" rx=\"4\" fill=\"#dce6f2\"/>\n"
        var baseline = box.y + Metrics.padding / 2 + Metrics.lineHeight - 3
        svg += "    <text x=\"\(number(box.midX))\" y=\"\(number(baseline))\" text-anchor=\"middle\" font-weight=\"bold\">\(xmlEscaped(node.name))</text>\n"
        if let subtitle = node.subtitle {
            baseline += Metrics.lineHeight
            svg += "    <text x=\"\(number(box.midX))\" y=\"\(number(baseline))\" text-anchor=\"middle\" font-size=\"10\" font-style=\"italic\">\(xmlEscaped(subtitle))</text>\n"
        }
        baseline = box.y + box.headerHeight + Metrics.padding / 2 + Metrics.lineHeight - 3
        for line in node.lines {
            svg += "    <text x=\"\(number(box.x + Metrics.padding))\" y=\"\(number(baseline))\">\(xmlEscaped(line))</text>\n"
            baseline += Metrics.lineHeight
        }
        return svg + "  </g>\n"
    }

    /// A coordinate with at most one decimal, locale-independent: `12`, `12.5`, `-3.2`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = abs(tenths)
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
