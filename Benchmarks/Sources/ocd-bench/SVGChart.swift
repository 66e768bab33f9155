import Foundation

/// A small grouped bar chart of the ratios to raw SQLite, on a log scale, written as SVG.
enum SVGChart {
    static let colors: [Comparator: String] = [
        .grdbRows: "#8fb8de", .grdbRecords: "#3b75af", .ocdKVC: "#f0a35e", .ocdTyped: "#c8553d",
    ]

    static func render(_ results: [CaseResult]) -> String {
        let series: [Comparator] = [.grdbRows, .grdbRecords, .ocdKVC, .ocdTyped]
        let rows = results.filter { $0.measurements[.raw]?.median != nil }
        let values = rows.flatMap { result in series.compactMap { result.ratio($0) } }
        let top = max(4, (values.max() ?? 4) * 1.3)
        let logTop = log10(top)
        let logBottom = log10(0.5)
        let barWidth = 9.0, gap = 14.0
        let groupWidth = Double(series.count) * barWidth + gap
        let left = 56.0, right = 16.0, topMargin = 40.0, plotHeight = 300.0, bottomMargin = 110.0
        let width = left + Double(rows.count) * groupWidth + right
        let height = topMargin + plotHeight + bottomMargin

        func y(_ ratio: Double) -> Double {
            let clamped = min(max(ratio, 0.5), top)
            return topMargin + plotHeight * (1 - (log10(clamped) - logBottom) / (logTop - logBottom))
        }
        func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg: [String] = []
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" font-family=\"sans-serif\" font-size=\"11\">")
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        svg.append("<text x=\"\(fmt(left))\" y=\"18\" font-size=\"13\" font-weight=\"bold\">Time ÷ raw SQLite time, median of the same run (log scale; lower is better)</text>")
        // Grid lines.
        var tick = 0.5
        var ticks: [Double] = []
        while tick <= top { ticks.append(tick); tick *= 2 }
        for tick in ticks {
            let ty = y(tick)
            let color = tick == 1 ? "#333" : "#ddd"
            svg.append("<line x1=\"\(fmt(left))\" y1=\"\(fmt(ty))\" x2=\"\(fmt(width - right))\" y2=\"\(fmt(ty))\" stroke=\"\(color)\" stroke-width=\"\(tick == 1 ? 1.5 : 1)\"/>")
            let label = tick < 1 ? String(format: "%.1f×", tick) : String(format: "%.0f×", tick)
            svg.append("<text x=\"\(fmt(left - 6))\" y=\"\(fmt(ty + 4))\" text-anchor=\"end\" fill=\"#555\">\(label)</text>")
        }
        // Bars.
        for (index, result) in rows.enumerated() {
            let groupX = left + Double(index) * groupWidth + gap / 2
            for (position, comparator) in series.enumerated() {
                let x = groupX + Double(position) * barWidth
                guard let ratio = result.ratio(comparator) else {
                    svg.append("<text x=\"\(fmt(x + barWidth / 2))\" y=\"\(fmt(y(1) - 3))\" text-anchor=\"middle\" font-size=\"8\" fill=\"#999\">–</text>")
                    continue
                }
                let base = y(1), end = y(ratio)
                let barTop = min(base, end), barHeight = max(abs(base - end), 1)
                svg.append("<rect x=\"\(fmt(x))\" y=\"\(fmt(barTop))\" width=\"\(fmt(barWidth - 1))\" height=\"\(fmt(barHeight))\" fill=\"\(colors[comparator]!)\"><title>\(result.benchCase.id) \(comparator.title): \(Report.ratio(ratio))</title></rect>")
            }
            let labelX = groupX + Double(series.count) * barWidth / 2
            let labelY = topMargin + plotHeight + 10
            svg.append("<text transform=\"translate(\(fmt(labelX)),\(fmt(labelY))) rotate(60)\" fill=\"#222\">\(result.benchCase.id)</text>")
        }
        // Legend.
        var legendX = left
        let legendY = height - 16
        for comparator in series {
            svg.append("<rect x=\"\(fmt(legendX))\" y=\"\(fmt(legendY - 9))\" width=\"10\" height=\"10\" fill=\"\(colors[comparator]!)\"/>")
            svg.append("<text x=\"\(fmt(legendX + 14))\" y=\"\(fmt(legendY))\">\(comparator.title)</text>")
            legendX += 110
        }
        svg.append("<text x=\"\(fmt(legendX))\" y=\"\(fmt(legendY))\" fill=\"#555\">(1× = raw SQLite; missing bar = n/a)</text>")
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }
}
