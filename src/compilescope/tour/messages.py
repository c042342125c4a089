"""Every text the tour writes, in English, Chinese and Thai, as the lab writes them: the same
terms in each (guard, graph break, Dynamo, AOT Autograd, Inductor, kernel stay as they are).

A message is a template; its values (numbers, names, code) are formatted once, by the caller,
and put into every language as they are, so a figure reads the same in all three. A test checks
that every message exists in every language with the same placeholders.
"""

from __future__ import annotations

import os
import string

LANGUAGES = ("en", "zh", "th")
NAMES = {"en": "English", "zh": "中文", "th": "ไทย"}

MESSAGES: dict[str, dict[str, str]] = {
    # ---- the tour itself -------------------------------------------------------------------
    "tour.title": {
        "en": "What does torch.compile do? A tour on your machine",
        "zh": "torch.compile 做了什么？在你自己的机器上走一遍",
        "th": "torch.compile ทำอะไร? ทัวร์บนเครื่องของคุณเอง",
    },
    "tour.running": {
        "en": "Lesson {number} of {count}: running {program}",
        "zh": "第 {number} 课，共 {count} 课：正在运行 {program}",
        "th": "บทที่ {number} จาก {count}: กำลังรัน {program}",
    },
    "tour.next": {
        "en": "Enter: the next lesson · q: stop here",
        "zh": "回车：下一课 · q：到此为止",
        "th": "Enter: บทถัดไป · q: หยุดตรงนี้",
    },
    "tour.done": {
        "en": "The tour took {seconds} on this machine ({lessons} lessons).",
        "zh": "这次游览在这台机器上用了 {seconds}（{lessons} 课）。",
        "th": "ทัวร์นี้ใช้เวลา {seconds} บนเครื่องนี้ ({lessons} บท)",
    },
    "error.lesson": {
        "en": "--lesson: there are lessons 1 to {count}, not {given}",
        "zh": "--lesson：课程编号是 1 到 {count}，没有 {given}",
        "th": "--lesson: มีบทที่ 1 ถึง {count} ไม่มีบทที่ {given}",
    },
    "error.no_gpu": {
        "en": "--device cuda: torch {torch} sees no GPU here (torch.cuda.is_available() is False); run without --device",
        "zh": "--device cuda：这里的 torch {torch} 看不到 GPU（torch.cuda.is_available() 为 False）；请去掉 --device 再运行",
        "th": "--device cuda: torch {torch} บนเครื่องนี้มองไม่เห็น GPU (torch.cuda.is_available() เป็น False) ให้รันโดยไม่ใส่ --device",
    },
    "error.no_torch": {
        "en": "--device cuda: torch did not import here: {error}",
        "zh": "--device cuda：这里无法 import torch：{error}",
        "th": "--device cuda: import torch บนเครื่องนี้ไม่ได้: {error}",
    },
    "word.yes": {"en": "yes", "zh": "有", "th": "มี"},
    "word.no": {"en": "no", "zh": "没有", "th": "ไม่มี"},
    "word.found": {"en": "found", "zh": "找到了", "th": "พบ"},
    "word.not_found": {"en": "not found", "zh": "没找到", "th": "ไม่พบ"},
    "tour.done.one": {
        "en": "The tour took {seconds} on this machine (one lesson).",
        "zh": "这次游览在这台机器上用了 {seconds}（1 课）。",
        "th": "ทัวร์นี้ใช้เวลา {seconds} บนเครื่องนี้ (1 บท)",
    },
    "tour.page": {"en": "The page: {path}", "zh": "网页：{path}", "th": "หน้าเว็บ: {path}"},
    "word.any": {"en": "any", "zh": "任意", "th": "ใดก็ได้"},
    "word.no_saving": {"en": "no clear saving", "zh": "没有明显的节省", "th": "ไม่ได้ประหยัดชัดเจน"},
    "word.unknown": {"en": "unknown", "zh": "未知", "th": "ไม่ทราบ"},
    "word.library_call": {"en": "library call", "zh": "库函数调用", "th": "เรียกไลบรารี"},
    "word.compiled": {"en": "compiled", "zh": "编译成功", "th": "คอมไพล์ผ่าน"},
    # ---- the views: what compilescope saw, labelled in the tour's language ---------------------
    "guard.tensor": {
        "en": "{name} is a {dtype} tensor of size {size}, stride {stride}, {grad}",
        "zh": "{name} 是 {dtype} 张量，形状 {size}，步长 {stride}，{grad}",
        "th": "{name} เป็นเทนเซอร์ {dtype} ขนาด {size} stride {stride} {grad}",
    },
    "view.torch_says": {"en": "torch's own words: {text}", "zh": "torch 的原话：{text}", "th": "ข้อความของ torch เอง: {text}"},
    "view.cache_table": {
        "en": "The same program, run twice",
        "zh": "同一个程序，运行两次",
        "th": "โปรแกรมเดียวกัน รันสองครั้ง",
    },
    "view.run": {"en": "run", "zh": "运行", "th": "การรัน"},
    "view.cold": {"en": "empty cache", "zh": "空缓存", "th": "แคชว่าง"},
    "view.warm": {"en": "filled cache", "zh": "已填好的缓存", "th": "แคชที่เติมแล้ว"},
    "view.wrap": {"en": "torch.compile()", "zh": "torch.compile()", "th": "torch.compile()"},
    "view.call": {"en": "call {number}", "zh": "第 {number} 次调用", "th": "เรียกครั้งที่ {number}"},
    "view.compiling": {"en": "compiling", "zh": "编译", "th": "คอมไพล์"},
    "view.hits": {"en": "cache hits / misses", "zh": "缓存命中 / 未命中", "th": "cache hit / miss"},
    "view.graph": {
        "en": "Dynamo's graph of {function} ({where}):",
        "zh": "{function} 的 Dynamo 图（{where}）：",
        "th": "กราฟของ Dynamo สำหรับ {function} ({where}):",
    },
    "view.guards": {
        "en": "{count} guards, by kind: {kinds}",
        "zh": "共 {count} 个 guard，按种类：{kinds}",
        "th": "guard {count} ตัว แยกตามชนิด: {kinds}",
    },
    "view.guard_on": {"en": "The guard on your input:", "zh": "你的输入上的 guard：", "th": "guard บนอินพุตของคุณ:"},
    "view.version": {"en": "version", "zh": "版本", "th": "เวอร์ชัน"},
    "view.why": {"en": "why it was compiled", "zh": "为什么编译", "th": "ทำไมถึงคอมไพล์"},
    "view.first_call": {"en": "the first call", "zh": "第一次调用", "th": "การเรียกครั้งแรก"},
    "view.failed": {
        "en": "a guard failed: expected {expected}, got {actual} ({text})",
        "zh": "一个 guard 没通过：期望 {expected}，实际是 {actual}（{text}）",
        "th": "guard ตัวหนึ่งไม่ผ่าน: คาดว่า {expected} แต่ได้ {actual} ({text})",
    },
    "view.failed_only": {
        "en": "a guard failed: {text}",
        "zh": "一个 guard 没通过：{text}",
        "th": "guard ตัวหนึ่งไม่ผ่าน: {text}",
    },
    "view.x_guard": {"en": "its guard on x", "zh": "它在 x 上的 guard", "th": "guard บน x ของมัน"},
    "view.aot.forward": {
        "en": "AOT forward graph, {count} ATen operations:",
        "zh": "AOT 前向图，{count} 个 ATen 操作：",
        "th": "กราฟ AOT forward มี ATen operation {count} ตัว:",
    },
    "view.aot.backward": {
        "en": "AOT backward graph, {count} ATen operations:",
        "zh": "AOT 反向图，{count} 个 ATen 操作：",
        "th": "กราฟ AOT backward มี ATen operation {count} ตัว:",
    },
    "view.aot.inference": {
        "en": "AOT inference graph, {count} ATen operations:",
        "zh": "AOT 推理图，{count} 个 ATen 操作：",
        "th": "กราฟ AOT inference มี ATen operation {count} ตัว:",
    },
    "view.kernels_of": {
        "en": "What Inductor made for {model}:",
        "zh": "Inductor 为 {model} 生成的：",
        "th": "สิ่งที่ Inductor สร้างให้ {model}:",
    },
    "view.kernel": {"en": "kernel", "zh": "kernel", "th": "kernel"},
    "view.kind": {"en": "kind", "zh": "种类", "th": "ชนิด"},
    "view.made_from": {"en": "made from (ATen)", "zh": "由哪些 ATen 操作而来", "th": "สร้างจาก (ATen)"},
    "view.code": {
        "en": "The code of {kernel}, as Inductor wrote it:",
        "zh": "{kernel} 的代码，就是 Inductor 写出的样子：",
        "th": "โค้ดของ {kernel} ตามที่ Inductor เขียน:",
    },
    "view.more_lines": {"en": "… {count} more lines", "zh": "… 还有 {count} 行", "th": "… อีก {count} บรรทัด"},
    "view.break": {
        "en": "Graph break in {function}, line {line}: {code}",
        "zh": "{function} 在第 {line} 行图中断：{code}",
        "th": "กราฟขาดใน {function} บรรทัด {line}: {code}",
    },
    "view.fullgraph": {
        "en": "torch.compile({model}, fullgraph=True): {result}",
        "zh": "torch.compile({model}, fullgraph=True)：{result}",
        "th": "torch.compile({model}, fullgraph=True): {result}",
    },
    "view.bench": {
        "en": "Eager vs torch.compile on {device} (median of {runs} calls each, taking turns)",
        "zh": "eager 对比 torch.compile，{device}（各 {runs} 次调用交替进行，取中位数）",
        "th": "eager เทียบกับ torch.compile บน {device} (ค่ามัธยฐานของการเรียกอย่างละ {runs} ครั้ง สลับกัน)",
    },
    "view.model": {"en": "model", "zh": "模型", "th": "โมเดล"},
    "view.eager_ms": {"en": "eager (ms)", "zh": "eager（毫秒）", "th": "eager (ms)"},
    "view.compiled_ms": {"en": "compiled (ms)", "zh": "编译后（毫秒）", "th": "แบบคอมไพล์ (ms)"},
    "view.speedup": {"en": "speed-up", "zh": "加速比", "th": "อัตราเร่ง"},
    "view.first": {"en": "first call", "zh": "第一次调用", "th": "การเรียกครั้งแรก"},
    "view.break_even": {"en": "calls to break even", "zh": "回本所需调用次数", "th": "จำนวนครั้งจนคุ้มทุน"},
    # ---- 1: what torch.compile needs ---------------------------------------------------------
    "lesson.1.title": {
        "en": "What torch.compile needs",
        "zh": "torch.compile 需要什么",
        "th": "torch.compile ต้องการอะไรบ้าง",
    },
    "lesson.1.text": {
        "en": (
            "Python {python}, torch {torch}, a GPU: {gpu}. Inductor writes C++ for the CPU, so a C++ compiler has to "
            "build it: g++ {gxx}, clang++ {clang}. That C++ includes Python.h: {python_h}. Given a compiler that does "
            "not exist, the compile stops here with: {missing}"
        ),
        "zh": (
            "Python {python}，torch {torch}，GPU：{gpu}。Inductor 为 CPU 写的是 C++，所以得有一个 C++ 编译器来编译它："
            "g++ {gxx}，clang++ {clang}。这些 C++ 代码会包含 Python.h：{python_h}。如果给它一个不存在的编译器，"
            "这台机器上的编译会停下来并报错：{missing}"
        ),
        "th": (
            "Python {python}, torch {torch}, GPU: {gpu} Inductor เขียนโค้ด C++ สำหรับ CPU จึงต้องมีคอมไพเลอร์ C++ มาคอมไพล์มัน: "
            "g++ {gxx}, clang++ {clang} โค้ด C++ นั้น include Python.h: {python_h} ถ้าให้คอมไพเลอร์ที่ไม่มีอยู่จริง "
            "การคอมไพล์บนเครื่องนี้จะหยุดพร้อมข้อความ: {missing}"
        ),
    },
    # ---- 2: the idea ---------------------------------------------------------------------------
    "lesson.2.title": {
        "en": "A wrapper, a guard and a cache",
        "zh": "一个包装器、一个 guard 和一个缓存",
        "th": "ตัวห่อ, guard และแคช",
    },
    "lesson.2.text": {
        "en": (
            "Before any PyTorch, the idea in plain Python: a wrapper keeps one version of the function per guard "
            "(here: the list's length and the type of its items). {calls} calls made {compiled} versions; the others "
            "found their guard in the cache and reused a version. torch.compile works the same way, with a real "
            "compiler and many more guards."
        ),
        "zh": (
            "先不用 PyTorch，用纯 Python 讲清楚这个想法：包装器为每个 guard 保留函数的一个版本"
            "（这里的 guard 是列表的长度和元素的类型）。{calls} 次调用产生了 {compiled} 个版本；其余的调用在缓存里找到了"
            "自己的 guard，直接复用已有的版本。torch.compile 也是这样工作的，只不过用的是真正的编译器，guard 也多得多。"
        ),
        "th": (
            "ก่อนจะใช้ PyTorch ดูแนวคิดด้วย Python ล้วน ๆ: ตัวห่อเก็บฟังก์ชันไว้หนึ่งเวอร์ชันต่อหนึ่ง guard "
            "(ในที่นี้คือความยาวของลิสต์และชนิดของสมาชิก) การเรียก {calls} ครั้งสร้าง {compiled} เวอร์ชัน "
            "ครั้งอื่น ๆ เจอ guard ของตัวเองในแคชและใช้เวอร์ชันเดิมซ้ำ torch.compile ทำงานแบบเดียวกัน "
            "เพียงแต่ใช้คอมไพเลอร์จริงและมี guard มากกว่านี้มาก"
        ),
    },
    "lesson.2.call": {
        "en": "{call}: guard {guard}: {action}",
        "zh": "{call}：guard {guard}：{action}",
        "th": "{call}: guard {guard}: {action}",
    },
    "lesson.2.compile": {"en": "new: compile", "zh": "新的：编译", "th": "ใหม่: คอมไพล์"},
    "lesson.2.reuse": {"en": "in the cache: reuse", "zh": "缓存里有：复用", "th": "มีในแคช: ใช้ซ้ำ"},
    # ---- 3: lazy compiling ---------------------------------------------------------------------
    "lesson.3.title": {
        "en": "Compiling waits for the first call",
        "zh": "编译要等到第一次调用",
        "th": "การคอมไพล์รอจนถึงการเรียกครั้งแรก",
    },
    "lesson.3.text": {
        "en": (
            "Wrapping took {wrap}: torch.compile only wraps your model ({wrapper} around {wrapped}). Your first call "
            "took {first}, the next {second}: the first call compiled ({compile} compiling). Run again with the "
            "compile cache the first run filled, the first call took {warm_first} (cache hits: {hits})."
        ),
        "zh": (
            "包装只用了 {wrap}：torch.compile 只是把模型包起来（{wrapper} 包着 {wrapped}）。你的第一次调用用了 {first}，"
            "下一次只用 {second}：编译发生在第一次调用时（编译用了 {compile}）。用第一次运行填好的编译缓存再运行一次，"
            "第一次调用只用了 {warm_first}（缓存命中 {hits} 次）。"
        ),
        "th": (
            "การห่อใช้เวลา {wrap}: torch.compile แค่ห่อโมเดลของคุณ ({wrapper} ห่อ {wrapped}) การเรียกครั้งแรกใช้เวลา {first} "
            "ครั้งถัดไป {second}: การเรียกครั้งแรกคือตอนที่คอมไพล์ (คอมไพล์ {compile}) เมื่อรันอีกครั้งด้วยแคชการคอมไพล์ที่รอบแรกเติมไว้ "
            "การเรียกครั้งแรกใช้เวลา {warm_first} (cache hit {hits} ครั้ง)"
        ),
    },
    # ---- 4: Dynamo ----------------------------------------------------------------------------
    "lesson.4.title": {
        "en": "Dynamo's graph and its guards",
        "zh": "Dynamo 的图和它的 guard",
        "th": "กราฟของ Dynamo และ guard ของมัน",
    },
    "lesson.4.text": {
        "en": (
            "Dynamo read your Python and captured {graphs} graph of {operations} operations, with {breaks} graph "
            "breaks. Before it reuses that graph, torch checks {guards} guards; the one on your input: {x_guard}."
        ),
        "zh": (
            "Dynamo 读了你的 Python 代码，捕获了 {graphs} 个图，包含 {operations} 个操作，图中断 {breaks} 次。"
            "在复用这个图之前，torch 要检查 {guards} 个 guard；你的输入上的那个是：{x_guard}。"
        ),
        "th": (
            "Dynamo อ่านโค้ด Python ของคุณและจับได้ {graphs} กราฟ มี {operations} operation และกราฟขาด {breaks} ครั้ง "
            "ก่อนจะใช้กราฟนั้นซ้ำ torch ตรวจ guard {guards} ตัว ตัวที่อยู่บนอินพุตของคุณคือ: {x_guard}"
        ),
    },
    # ---- 5: recompiles ------------------------------------------------------------------------
    "lesson.5.title": {
        "en": "When a guard fails: recompiles",
        "zh": "guard 不成立时：重新编译",
        "th": "เมื่อ guard ไม่ผ่าน: คอมไพล์ใหม่",
    },
    "lesson.5.text": {
        "en": (
            "8 rows took {first} (the compile), 8 rows again {again}. 16 rows failed the guard ({failed}) and compiled "
            "again in {second}. The new version is dynamic: {dynamic}. So 32 rows took {third} and compiled nothing: "
            "{compiles} versions served {sizes} sizes."
        ),
        "zh": (
            "8 行用了 {first}（在编译），再来 8 行只用 {again}。16 行没通过 guard（{failed}），重新编译用了 {second}。"
            "新版本是动态的：{dynamic}。所以 32 行只用了 {third}，什么也没有编译：{compiles} 个版本服务了 {sizes} 种大小。"
        ),
        "th": (
            "8 แถวใช้เวลา {first} (ช่วงคอมไพล์) 8 แถวอีกครั้งใช้ {again} 16 แถวไม่ผ่าน guard ({failed}) และคอมไพล์ใหม่ใน {second} "
            "เวอร์ชันใหม่เป็นแบบไดนามิก: {dynamic} ดังนั้น 32 แถวใช้เวลา {third} และไม่ต้องคอมไพล์อะไรเลย: "
            "{compiles} เวอร์ชันรองรับ {sizes} ขนาด"
        ),
    },
    # ---- 6: AOT Autograd ------------------------------------------------------------------------
    "lesson.6.title": {
        "en": "Training graphs: forward and backward",
        "zh": "训练用的图：前向和反向",
        "th": "กราฟสำหรับเทรน: forward และ backward",
    },
    "lesson.6.text": {
        "en": (
            "For a training call, AOT Autograd made a forward graph of {forward} ATen operations and a backward graph "
            "of {backward}. Without gradients, for a new batch size, it made one inference graph of {inference}."
        ),
        "zh": (
            "训练时的调用，AOT Autograd 生成了一个含 {forward} 个 ATen 操作的前向图和一个含 {backward} 个操作的反向图。"
            "不需要梯度、换了新的批大小时，它只生成了一个含 {inference} 个操作的推理图。"
        ),
        "th": (
            "สำหรับการเรียกตอนเทรน AOT Autograd สร้างกราฟ forward ที่มี ATen operation {forward} ตัว และกราฟ backward ที่มี {backward} ตัว "
            "เมื่อไม่ต้องการเกรเดียนต์และใช้ขนาด batch ใหม่ มันสร้างกราฟ inference เพียงกราฟเดียวที่มี {inference} ตัว"
        ),
    },
    # ---- 7: Inductor --------------------------------------------------------------------------
    "lesson.7.title": {
        "en": "Fusion, and the kernels Inductor wrote",
        "zh": "融合，以及 Inductor 写出的 kernel",
        "th": "การรวมงาน (fusion) และ kernel ที่ Inductor เขียน",
    },
    "lesson.7.text": {
        "en": (
            "In plain Python, two trips through a list took {two_trips}, one trip {one_trip}: fusion is one trip. For "
            "x + bias then relu, Inductor wrote {bias_kernels}. For a matmul then relu: {matmul_kernels}: the matmul is "
            "a library call, the relu a kernel of its own."
        ),
        "zh": (
            "用纯 Python 时，把列表走两遍用了 {two_trips}，走一遍用了 {one_trip}：融合就是只走一遍。对 x + bias 再 relu，"
            "Inductor 写出了 {bias_kernels}。对矩阵乘再 relu：{matmul_kernels}：矩阵乘是调用库函数，relu 是单独的 kernel。"
        ),
        "th": (
            "ใน Python ล้วน การวนลิสต์สองรอบใช้เวลา {two_trips} วนรอบเดียวใช้ {one_trip}: fusion ก็คือการวนรอบเดียว สำหรับ x + bias แล้ว relu "
            "Inductor เขียน {bias_kernels} สำหรับ matmul แล้ว relu: {matmul_kernels}: matmul เป็นการเรียกไลบรารี ส่วน relu เป็น kernel แยกของมันเอง"
        ),
    },
    "lesson.7.text_not_shown": {
        "en": (
            "In plain Python, two trips through a list took {two_trips} and one trip {one_trip}: this time the machine "
            "did not show the saving (a busy machine, or a Python that is quick at small lists). Fusion is still one "
            "trip through memory instead of two. For x + bias then relu, Inductor wrote {bias_kernels}. For a matmul "
            "then relu: {matmul_kernels}: the matmul is a library call, the relu a kernel of its own."
        ),
        "zh": (
            "用纯 Python 时，把列表走两遍用了 {two_trips}，走一遍用了 {one_trip}：这一次机器没有显示出节省"
            "（机器正忙，或者这个 Python 处理小列表很快）。融合依然是把两次读写内存变成一次。对 x + bias 再 relu，"
            "Inductor 写出了 {bias_kernels}。对矩阵乘再 relu：{matmul_kernels}：矩阵乘是调用库函数，relu 是单独的 kernel。"
        ),
        "th": (
            "ใน Python ล้วน การวนลิสต์สองรอบใช้เวลา {two_trips} วนรอบเดียวใช้ {one_trip}: รอบนี้เครื่องไม่ได้แสดงให้เห็นว่าประหยัดได้ "
            "(เครื่องกำลังยุ่ง หรือ Python ตัวนี้ทำงานกับลิสต์เล็ก ๆ ได้เร็ว) แต่ fusion ก็ยังคือการอ่านเขียนหน่วยความจำรอบเดียวแทนสองรอบ "
            "สำหรับ x + bias แล้ว relu Inductor เขียน {bias_kernels} สำหรับ matmul แล้ว relu: {matmul_kernels}: "
            "matmul เป็นการเรียกไลบรารี ส่วน relu เป็น kernel แยกของมันเอง"
        ),
    },
    # ---- 8: graph breaks ----------------------------------------------------------------------
    "lesson.8.title": {"en": "Graph breaks", "zh": "图中断", "th": "กราฟขาด"},
    "lesson.8.text": {
        "en": (
            "`.item()` in an `if` broke the graph at line {line} ({reason}): {if_graphs} graphs. torch.where keeps the "
            "choice inside one graph: {where_graphs} graph. With fullgraph=True, the break is an error instead: {error}."
        ),
        "zh": (
            "`if` 里的 `.item()` 在第 {line} 行让图中断了（{reason}）：共 {if_graphs} 个图。torch.where 把这个选择留在一个图里："
            "{where_graphs} 个图。加上 fullgraph=True，图中断就变成了错误：{error}。"
        ),
        "th": (
            "`.item()` ใน `if` ทำให้กราฟขาดที่บรรทัด {line} ({reason}): ได้ {if_graphs} กราฟ torch.where เก็บการเลือกไว้ในกราฟเดียว: "
            "{where_graphs} กราฟ เมื่อใช้ fullgraph=True กราฟขาดจะกลายเป็นข้อผิดพลาดแทน: {error}"
        ),
    },
    # ---- 9: faster? ---------------------------------------------------------------------------
    "lesson.9.title": {"en": "Is it faster?", "zh": "真的更快吗？", "th": "เร็วขึ้นจริงไหม?"},
    "lesson.9.model": {
        "en": "{model}: the first compiled call took {first}; then, per call, eager {eager} and compiled {compiled}: {ratio}× ({verdict}).",
        "zh": "{model}：第一次编译调用用了 {first}；之后每次调用，eager {eager}，编译后 {compiled}：{ratio}×（{verdict}）。",
        "th": "{model}: การเรียกแบบคอมไพล์ครั้งแรกใช้ {first} หลังจากนั้นต่อการเรียกหนึ่งครั้ง eager {eager} และแบบคอมไพล์ {compiled}: {ratio}× ({verdict})",
    },
    "lesson.9.faster": {"en": "compiled is faster", "zh": "编译后更快", "th": "แบบคอมไพล์เร็วกว่า"},
    "lesson.9.even": {"en": "about even", "zh": "差不多", "th": "พอ ๆ กัน"},
    "lesson.9.slower": {"en": "compiled is slower", "zh": "编译后更慢", "th": "แบบคอมไพล์ช้ากว่า"},
    "lesson.9.text": {
        "en": (
            "Many small steps are where fusion wins: Inductor runs them as one kernel. One big matmul is a library "
            "call either way, so there is nothing to win, and the first call still pays for compiling."
        ),
        "zh": (
            "许多小步骤正是融合能赢的地方：Inductor 把它们合成一个 kernel 来跑。一个大的矩阵乘，编译与否都是调用库函数，"
            "所以没什么可赢的，而第一次调用仍要付编译的代价。"
        ),
        "th": (
            "งานเล็ก ๆ หลายขั้นคือที่ที่ fusion ชนะ: Inductor รันพวกมันเป็น kernel เดียว ส่วน matmul ใหญ่ก้อนเดียวเป็นการเรียกไลบรารีอยู่แล้ว "
            "จึงไม่มีอะไรให้ชนะ และการเรียกครั้งแรกยังต้องจ่ายค่าคอมไพล์อยู่ดี"
        ),
    },
}


def language(given: str | None = None) -> str:
    """The language to write in: the one asked for, else the locale's (LC_ALL, LC_MESSAGES,
    LANG: "zh_CN.UTF-8" is Chinese, "th_TH" Thai), else English."""
    if given:
        if given not in LANGUAGES:
            raise ValueError(f"unknown language {given!r}: choose from {', '.join(LANGUAGES)}")
        return given
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "")
        if value:
            code = value.split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def say(key: str, lang: str, **values: str) -> str:
    """The message `key` in `lang`, with its values (already formatted) put in."""
    return MESSAGES[key][lang].format(**values)


def done(lang: str, total_s: float, lessons: int) -> str:
    """The tour's last line: how long it took, and how many lessons ran."""
    if lessons == 1:
        return say("tour.done.one", lang, seconds=f"{total_s:.0f} s")
    return say("tour.done", lang, seconds=f"{total_s:.0f} s", lessons=str(lessons))
