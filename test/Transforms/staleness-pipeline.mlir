// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="pipeline-depth=1 stale=w1" --dist-synchronize --dist-staleness-pipeline | FileCheck %s
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="pipeline-depth=1 stale=w1 compensation=delay_compensation stale-warmup=2" --dist-synchronize --dist-staleness-pipeline | FileCheck %s --check-prefix=DC
// RUN: autodist-opt %s --autodist-build-train-step="optimizer=momentum" --dist-strategy="pipeline-depth=1 stale=w1 compensation=weight_prediction" --dist-synchronize --dist-staleness-pipeline | FileCheck %s --check-prefix=WP
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy --dist-synchronize --dist-staleness-pipeline | FileCheck %s --check-prefix=NONE
// RUN: autodist-opt %s --autodist-build-train-step --dist-strategy="pipeline-depth=1 stale=w1,b1" --dist-synchronize --dist-staleness-pipeline | FileCheck %s --check-prefix=KEPT

// The stale gradient of w1 leaves the synchronous bucket: this step's is
// started into a future the step returns, and the update applies the one
// of the previous step (the future argument, waited for right before the
// start). The idle step (step 1: nothing in flight) keeps w1 as it was:
// its update holds on the idle condition.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<8x4xf32> {nn.param = "w1"}
// CHECK-SAME: %[[IN:[a-z0-9]+]]: !dist.future<tensor<8x4xf32>> {dist.inflight = "inflight.0", dist.inflight_params = ["w1"]}
// CHECK-SAME: %[[STEP:[a-z0-9]+]]: tensor<f32> {nn.step}
// CHECK-SAME: !dist.future<tensor<8x4xf32>> {dist.inflight = "inflight.0"})
// CHECK: %[[S:.*]] = tensor.extract %[[STEP]][]
// CHECK: %[[IDLE:.*]] = arith.cmpf oeq, %[[S]], %{{.*}}
// CHECK: %[[IDLET:.*]] = tensor.from_elements %[[IDLE]]
// The wait and the start come at the end of the step, after the synchronous
// bucket (whose bytes then go first on the wire).
// CHECK: %[[G:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[R:.*]]:3 = dist.all_reduce mean %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8x3xf32>, tensor<f32>
// CHECK: %[[PREV:.*]] = dist.wait %[[IN]] : !dist.future<tensor<8x4xf32>>
// CHECK-NEXT: %[[OUT:.*]] = dist.all_reduce_start mean %[[G]] : tensor<8x4xf32> -> !dist.future<tensor<8x4xf32>>
// CHECK-NEXT: %[[U:.*]] = nn.sgd_update %[[W1]], %[[PREV]], %{{.*}}, %[[IDLET]] :
// CHECK-NOT: nn.where
// CHECK: return %[[R]]#2, %[[U]], %{{.*}}, %{{.*}}, %[[OUT]]

// Delay compensation with 2 warm-up steps: the warm-up steps start their
// gradient (never applied) and reduce it synchronously; later steps apply
// ḡ + λ·ḡ⊙ḡ⊙(w − w_prev), w_prev a state cache the step rewrites with w.
// DC-LABEL: func.func @train_step
// DC-SAME: %[[W1:[a-z0-9]+]]: tensor<8x4xf32> {nn.param = "w1"}
// DC-SAME: %[[PW:[a-z0-9]+]]: tensor<8x4xf32> {nn.state = "w1/dc_prev_weight"}
// DC-SAME: %[[IN:[a-z0-9]+]]: !dist.future<tensor<8x4xf32>> {dist.inflight = "inflight.0"
// DC-SAME: tensor<8x4xf32> {nn.state_out = "w1/dc_prev_weight"}, !dist.future<tensor<8x4xf32>> {dist.inflight = "inflight.0"})
// DC: %[[WARM:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// DC: %[[G:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// DC-NOT: nn.where
// DC: %[[PREV:.*]] = dist.wait %[[IN]]
// DC-NEXT: %[[OUT:.*]] = dist.all_reduce_start mean %[[G]]
// DC-NEXT: %[[DW:.*]] = nn.sub %[[W1]], %[[PW]]
// DC-NEXT: %[[GG:.*]] = nn.mul %[[PREV]], %[[PREV]]
// DC-NEXT: %[[T:.*]] = nn.mul %[[GG]], %[[DW]]
// DC-NEXT: %[[LAMBDA:.*]] = arith.constant dense<5.000000e-01>
// DC-NEXT: %[[LT:.*]] = nn.mul %[[LAMBDA]], %[[T]]
// DC-NEXT: %[[COMP:.*]] = nn.add %[[PREV]], %[[LT]]
// DC-NEXT: %[[APPLIED:.*]] = scf.if %[[WARM]] -> (tensor<8x4xf32>) {
// DC-NEXT: %[[SYNC:.*]] = dist.all_reduce mean %[[G]] : tensor<8x4xf32>
// DC-NEXT: scf.yield %[[SYNC]]
// DC-NEXT: } else {
// DC-NEXT: scf.yield %[[COMP]]
// DC: nn.sgd_update %[[W1]], %[[APPLIED]]
// DC: return {{.*}}, %[[W1]], %[[OUT]] :

// Weight prediction: the forward and backward passes read ŵ (state that
// starts as w1, each rank its own: dist.per_rank), which the step before
// computed right after its update: Opt(w1', ĝ) with the new parameter and
// velocity, this step's local gradient as ĝ, and the next step's learning
// rate (nn.next_lr), held during warm-up (ŵ = w1'); the real update reads
// w1 and holds while idle.
// WP-LABEL: func.func @train_step
// WP-SAME: %[[W1:[a-z0-9]+]]: tensor<8x4xf32> {nn.param = "w1"}
// WP-SAME: %[[V:[a-z0-9]+]]: tensor<8x4xf32> {nn.state = "w1/momentum_buffer"}
// WP-SAME: %[[WHAT:[a-z0-9]+]]: tensor<8x4xf32> {dist.init_param = "w1", dist.per_rank, nn.state = "w1/wp_weight"}
// WP-SAME: %[[LR:[a-z0-9]+]]: tensor<f32> {nn.lr}
// WP-SAME: %[[NEXTLR:[a-z0-9]+]]: tensor<f32> {nn.next_lr}
// WP-SAME: tensor<8x4xf32> {nn.state_out = "w1/wp_weight"}
// WP: %[[WARM:.*]] = arith.cmpf olt
// WP: %[[WARMT:.*]] = tensor.from_elements %[[WARM]]
// WP: %[[IDLE:.*]] = arith.cmpf oeq
// WP: %[[IDLET:.*]] = tensor.from_elements %[[IDLE]]
// WP: nn.gemm %{{.*}}, %[[WHAT]], %{{.*}} {transB = true}
// WP: %[[LOCAL:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// WP: %[[NP:.*]], %[[NV:.*]] = nn.momentum_update %[[W1]], %{{.*}}, %[[V]], %[[LR]], %[[IDLET]] :
// WP: %[[PRED:.*]], %{{.*}} = nn.momentum_update %[[NP]], %[[LOCAL]], %[[NV]], %[[NEXTLR]], %[[WARMT]] :
// WP: return {{.*}}, %[[PRED]], %{{.*}} : {{.*}}, tensor<8x4xf32>, !dist.future<tensor<8x4xf32>>

// What stays synchronous (w2's gradient and the loss) is reduced right after
// its last value is computed, before the backward pass of the first layer
// (whose gradients are stale): dist-overlap-collectives can hide it there.
// KEPT-LABEL: func.func @train_step
// KEPT: %[[R:.*]]:2 = dist.all_reduce mean %{{.*}}, %{{.*}} : tensor<8x3xf32>, tensor<f32>
// KEPT: %[[G:.*]] = nn.gemm %{{.*}}, %{{.*}} {transA = true} : (tensor<?x8xf32>, tensor<?x4xf32>) -> tensor<8x4xf32>
// KEPT: dist.all_reduce_start mean %[[G]], %{{.*}} : tensor<8x4xf32>, tensor<8xf32>

// Without a pipeline the pass changes nothing.
// NONE-LABEL: func.func @train_step
// NONE-NOT: dist.future
// NONE: dist.all_reduce mean
// NONE-NOT: dist.future
module {
  func.func @forward(%w1: tensor<8x4xf32> {nn.param = "w1"}, %b1: tensor<8xf32> {nn.param = "b1"},
                     %w2: tensor<8x3xf32> {nn.param = "w2"}, %x: tensor<?x4xf32> {nn.input = "x"})
      -> (tensor<?x3xf32> {nn.output = "logits"}) {
    %h = nn.gemm %x, %w1, %b1 {transB = true} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %l = nn.matmul %h, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
    return %l : tensor<?x3xf32>
  }
}
