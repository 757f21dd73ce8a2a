extension HTMLReport {
    /// The page's only stylesheet: system fonts, colours with at least 4.5:1 contrast for
    /// text, and a print layout (A4, one offering per page, colours kept; the narrow-screen
    /// rules also match a printed page, so the print rules undo the ones paper cannot scroll).
    /// On a phone (600 px and less) every table row becomes a block whose cells are labelled
    /// (the labels repeat the column headings, which are hidden), so nothing is cut at the
    /// right edge, and chart text is drawn larger than the charts' own scale would make it.
    static let stylesheet = """
        :root{--ink:#1a1a1a;--muted:#595959;--line:#d6d6d6;--soft:#f4f5f7;--better:#0a6b38;--better-bg:#e2f3e8;\
        --worse:#a3151a;--worse-bg:#fce8e8;--caution:#6b4400;--caution-bg:#fff3d1;--caution-line:#d99a00;--changed:#fff0a8}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;color:var(--ink);background:#fff;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        main{max-width:1180px;margin:0 auto;padding:28px 32px 56px}
        h1{font-size:30px;line-height:1.2;margin:2px 0 6px}
        h2{font-size:23px;line-height:1.25;margin:0 0 4px}
        h3{font-size:17px;margin:30px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
        p{margin:6px 0}
        code{font:13px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
        a{color:#0b5394}
        .kicker{margin:0;text-transform:uppercase;letter-spacing:.08em;font-size:12px;font-weight:600;color:var(--muted)}
        .facts,.setup,.note,.muted,.warnings-scope{color:var(--muted)}
        .note{font-size:13px;max-width:80ch}
        .empty{padding:12px 14px;background:var(--soft);border-radius:6px;color:var(--muted)}
        .warnings{margin:18px 0}
        .banner{display:flex;gap:12px;align-items:flex-start;border:1px solid;border-left-width:8px;border-radius:8px;padding:12px 16px;margin:10px 0}
        .banner p{margin:2px 0}
        .banner.critical{background:var(--worse-bg);border-color:var(--worse)}
        .banner.caution{background:var(--caution-bg);border-color:var(--caution-line)}
        .banner .icon{flex:none;width:26px;height:26px;border-radius:50%;color:#fff;font-weight:700;text-align:center;line-height:26px}
        .banner.critical .icon{background:var(--worse)}
        .banner.caution .icon{background:var(--caution)}
        .banner-title{font-weight:700;font-size:16px}
        .banner .effect{font-weight:600}
        .banner.critical .severity{color:var(--worse)}
        .banner.caution .severity{color:var(--caution)}
        .warnings-scope{font-size:13px;margin-top:-2px}
        .overview{margin:22px 0 8px;padding:16px 20px;background:var(--soft);border-radius:10px}
        .overview h2{font-size:18px;margin-bottom:8px}
        .overview ul{list-style:none;margin:0;padding:0}
        .overview li{padding:8px 0;border-top:1px solid var(--line)}
        .overview li:first-child{border-top:0}
        .overview a{font-weight:600;text-decoration:none}
        .overview a code{font-weight:400;color:var(--muted)}
        .verdict-line{margin:2px 0 0}
        .overview li.decided{background:var(--better-bg);border-left:6px solid var(--better)}
        .overview li.glance{padding:8px 10px;border-radius:6px;margin:4px 0}
        .treatment{display:grid;grid-template-columns:minmax(7em,1fr) minmax(9em,1.4fr) 2.2fr 2.6fr 1.6fr;gap:0 12px;padding:4px 0;font-size:14px}
        .treatment .group{font-weight:600;overflow-wrap:anywhere}
        .treatment .status{font-weight:600}
        .treatment .worth,.treatment .when{color:var(--ink)}
        .treatment .periods{grid-column:1/-1;font-size:13px;color:var(--muted)}
        .treatment .far-ends{display:block;font-size:13px}
        figure.year-make-up{margin:16px 0}
        figure.year-make-up svg{max-width:720px}
        .far-ends-key{display:inline-block;width:16px;border-top:2px solid var(--ink);margin-right:7px;vertical-align:middle}
        .warning-titles{font-size:13px;font-weight:600;color:var(--caution)}
        .pill{display:inline-block;font-size:12px;font-weight:600;line-height:1;padding:4px 8px;border-radius:999px;vertical-align:middle;white-space:nowrap}
        .pill.critical{background:var(--worse);color:#fff}
        .pill.caution{background:var(--caution-bg);color:var(--caution);border:1px solid var(--caution-line)}
        .pill.active{background:var(--better-bg);color:var(--better)}
        .pill.inactive{background:var(--soft);color:var(--muted);border:1px solid var(--line)}
        .offering{margin-top:44px;padding-top:24px;border-top:3px solid var(--ink)}
        .offering-id{font-size:15px;font-weight:400;color:var(--muted)}
        .verdict{margin:16px 0;padding:14px 18px;border-radius:10px;border-left:8px solid var(--muted);background:var(--soft)}
        .verdict.win{border-color:var(--better);background:var(--better-bg)}
        .verdict.lose{border-color:var(--worse);background:var(--worse-bg)}
        .verdict .label{margin:0;text-transform:uppercase;letter-spacing:.08em;font-size:12px;font-weight:700;color:var(--muted)}
        .verdict .sentence{font-size:21px;line-height:1.35;font-weight:600;margin:2px 0 8px}
        .verdict .caveat{font-weight:700;color:var(--worse);margin:0 0 8px}
        .headlines{margin:0;padding-left:0;list-style:none}
        .headlines li{margin:4px 0}
        .better{color:var(--better)}
        .worse{color:var(--worse)}
        span.better,span.worse{font-weight:600}
        .swatch{display:inline-block;width:11px;height:11px;border-radius:3px;margin-right:7px;vertical-align:baseline}
        .tag{font-size:11px;font-weight:600;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:1px 5px}
        table{border-collapse:collapse;width:100%;margin:4px 0 6px}
        th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        thead th{font-size:12px;font-weight:600;color:var(--muted);border-bottom:2px solid var(--ink);vertical-align:bottom;white-space:normal}
        tbody th{font-weight:600;white-space:nowrap}
        .num{text-align:right;font-variant-numeric:tabular-nums}
        td.num{white-space:nowrap}
        td .main{display:block;font-size:16px;font-weight:600;white-space:nowrap}
        td .detail{display:block;font-size:12px;color:var(--muted);white-space:normal}
        table.details td .main{font-size:14px;font-weight:400}
        table.projection td.num{white-space:normal}
        table.numbers tbody th,table.quality td{font-weight:400}
        table.numbers tbody th code,table.quality code{color:var(--muted);font-size:11px;margin-left:4px}
        table.quality{width:auto;min-width:340px}
        tr.flagged td{background:var(--caution-bg);font-weight:600}
        .charts{display:grid;grid-template-columns:1fr 1fr;gap:28px;margin:18px 0 4px}
        figure{margin:0}
        figcaption{font-weight:600;margin-bottom:6px}
        svg{display:block;width:100%;height:auto;font-family:inherit}
        .legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13px}
        .legend .muted{margin-left:6px}
        .paywalls{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:18px}
        .paywall figcaption{margin-bottom:8px}
        .screen{border:1px solid var(--line);border-radius:20px;padding:18px 16px;background:#fafbfc;box-shadow:0 1px 3px rgba(0,0,0,.08)}
        .screen p{white-space:pre-line}
        .screen .title{font-size:20px;font-weight:700;text-align:center;margin:0}
        .screen .subtitle{text-align:center;color:var(--muted);margin:2px 0 12px}
        .options{list-style:none;margin:0 0 12px;padding:0}
        .option{display:flex;gap:10px;align-items:flex-start;border:1px solid var(--line);border-radius:10px;padding:9px 11px;margin:7px 0;background:#fff}
        .option.default{border:2px solid var(--ink)}
        .option .radio{flex:none;width:16px;height:16px;margin-top:3px;border-radius:50%;border:2px solid var(--muted)}
        .option.default .radio{border:5px solid var(--ink)}
        .option .what{flex:1;min-width:0}
        .option .type{font-weight:600}
        .option code{display:block;font-size:11px;color:var(--muted)}
        .option .sub{display:block;font-size:13px;white-space:pre-line}
        .option .price{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}
        .badge{display:inline-block;font-size:10px;font-weight:700;letter-spacing:.04em;background:var(--ink);color:#fff;border-radius:4px;padding:2px 6px;vertical-align:middle}
        .default-tag{font-size:11px;color:var(--muted);white-space:nowrap}
        .screen .cta{text-align:center;font-weight:700;color:#fff;background:#0b5394;border-radius:10px;padding:9px;margin:0 0 8px}
        .screen .support{text-align:center;font-size:12px;color:var(--muted);margin:0}
        .changed{background:var(--changed);box-shadow:0 0 0 3px var(--changed)}
        .screen .cta.changed{background:#0b5394;outline:4px solid var(--changed);box-shadow:none}
        .run{margin-top:52px;padding-top:20px;border-top:3px solid var(--ink)}
        .facts-list{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:8px 0}
        .facts-list dt{color:var(--muted)}
        .facts-list dd{margin:0;overflow-wrap:anywhere}
        .files{columns:2;font-size:12px}
        details{margin:8px 0}
        summary{cursor:pointer;color:#0b5394}
        details.reference{margin:0}
        details.reference>summary{list-style:none;color:inherit}
        details.reference>summary::-webkit-details-marker{display:none}
        table.details td.num,table.details td .main{white-space:normal}
        details.reference>summary h3::after{content:" ▸ show";font-size:13px;font-weight:400;color:#0b5394}
        details.reference[open]>summary h3::after{content:" ▾ hide"}
        @media (max-width:1100px){.secondary{display:none}}
        @media (max-width:1600px){table.results .secondary{display:none}}
        @media (max-width:820px){main{padding:18px 14px 40px}.charts{grid-template-columns:1fr}td.num{white-space:normal}.files{columns:1}.treatment{grid-template-columns:1fr 1fr}\
        table.details{font-size:13px}table.details th,table.details td{padding:6px 4px}table.details tbody th{white-space:normal;overflow-wrap:anywhere}}
        @media screen and (max-width:1100px){
        table.results,table.results tbody{display:block;overflow:visible}
        table.results thead{display:none}
        table.results tr{display:grid;grid-template-columns:1fr 1fr;gap:0 14px;padding:8px 0;border-bottom:1px solid var(--line)}
        table.results tbody th{grid-column:1/-1;border:0;padding:2px 0 4px;white-space:normal;overflow-wrap:anywhere}
        table.results td{border:0;padding:4px 0;text-align:left;min-width:0}
        table.results td::before{display:block;font-size:11px;font-weight:600;color:var(--muted)}
        table.results td:nth-of-type(1){grid-column:1/-1}
        \(cellLabels("results", [
            "Users", "Conversion", "Conversion vs control", "Revenue per user", "Revenue per user vs control", "Proceeds per user",
            "Proceeds per user vs control",
        ]))
        }
        @media screen and (max-width:600px){
        main{padding:16px 12px 36px}
        h1{font-size:24px}
        h2{font-size:20px}
        .verdict .sentence{font-size:18px}
        code{overflow-wrap:break-word}
        details.reference>summary h3{margin:14px 0 4px}
        table.details,table.capped,table.matured,table.details tbody,table.capped tbody,table.matured tbody{display:block;overflow:visible}
        table.details thead,table.capped thead,table.matured thead{display:none}
        table.details tr,table.capped tr,table.matured tr{display:grid;grid-template-columns:1fr 1fr;gap:0 14px;padding:8px 0;border-bottom:1px solid var(--line)}
        table.details tbody th,table.capped tbody th,table.matured tbody th{grid-column:1/-1;border:0;padding:2px 0 4px;white-space:normal;overflow-wrap:anywhere}
        table.details td,table.capped td,table.matured td{border:0;padding:4px 0;text-align:left;min-width:0}
        table.details td::before,table.capped td::before,table.matured td::before,table.products td::before{display:block;font-size:11px;font-weight:600;color:var(--muted)}
        table.matured td:nth-of-type(1){grid-column:1/-1}
        table.details td:nth-of-type(1){grid-column:1/-1}
        \(cellLabels("details", [
            "Metric", nil, "Difference", "Relative", "Corrected p", "Always-valid change", "Always-valid corrected p",
            "Chance to beat control", "Detectable difference",
        ]))
        table.details.slice td::before{content:attr(data-label)}
        \(cellLabels("capped", ["Revenue per user", "Capped", "Capped vs control", "Users over the cap"]))
        \(cellLabels("matured", [nil, "Matured users", "Conversion", "Conversion vs control", "Revenue per user", "Revenue per user vs control"]))
        td.num,td .main{white-space:normal}
        svg{overflow:visible}
        svg text{font-size:17px}
        svg text[font-size="11"]{font-size:15px}
        th,td{padding:6px 5px}
        tbody th{white-space:normal}
        table.numbers tbody th code,table.quality code{display:block;margin:0;overflow-wrap:anywhere}
        table.numbers{font-size:13px}
        table.numbers thead th{overflow-wrap:anywhere}
        table.products,table.products tbody{display:block}
        table.products thead{display:none}
        table.products tr{display:grid;grid-template-columns:1fr 1fr 1fr 1.6fr;gap:0 8px;padding:6px 0;border-bottom:1px solid var(--line)}
        table.products td{border:0;padding:2px 0;min-width:0;white-space:nowrap}
        table.products td:nth-of-type(-n+2){grid-column:span 2}
        table.products td:nth-of-type(n+3){text-align:left}
        \(cellLabels("products", [nil, nil, "Purchases", "Renewals", "Refunds", "Net revenue"]))
        }
        @media print{
        @page{size:A4;margin:12mm}
        *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
        body{font-size:10pt}
        main{max-width:none;padding:0}
        h1{font-size:20pt}
        .offering{break-before:page;border-top:0;margin-top:0;padding-top:0}
        .banner,.verdict,figure,.paywall,tr,.overview li{break-inside:avoid}
        h3{break-after:avoid}
        .charts{gap:14px}
        .secondary{display:none}
        .paywalls{grid-template-columns:repeat(3,1fr)}
        table.results,table.details{display:table;overflow:visible}
        table{font-size:8.5pt}
        th,td{padding:4px 5px}
        tbody th{white-space:normal;overflow-wrap:anywhere}
        td .detail{font-size:7.5pt}
        table.details td.num{white-space:normal}
        a{color:inherit;text-decoration:none}
        .screen{box-shadow:none}
        details:not(.reference){display:none}
        details.reference::details-content{content-visibility:visible}
        td .main,table.details td .main{font-size:9.5pt}
        }
        """

    /// The phone layout's labels of a table's cells, `td`s in order (nil: no label), repeating
    /// the column headings it hides.
    private static func cellLabels(_ table: String, _ labels: [String?]) -> String {
        labels.enumerated().compactMap { index, label in
            label.map { "table.\(table) td:nth-of-type(\(index + 1))::before{content:\"\($0)\"}" }
        }.joined(separator: "\n")
    }
}
