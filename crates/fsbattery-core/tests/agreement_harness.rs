//! The agreement harness's decision rule against known answers: the order-statistic interval
//! of the median at the binomial coverages worked by hand, and decisions on planted ratios
//! (a drift to 0.86 is decided outside, a steady 1.0 inside, a wide scatter undecided).

mod agree;

use agree::{decide, median_interval, Agreement, DECIDE_CONFIDENCE};

#[test]
fn the_interval_takes_the_order_statistics_the_binomial_gives() {
    let v = |n: usize| (1..=n).map(|i| i as f64).collect::<Vec<_>>();
    // n = 4: the widest interval, [x(1), x(4)], covers 1 − 2/16 = 0.875 < 0.90.
    assert_eq!(median_interval(v(4), DECIDE_CONFIDENCE), None);
    // n = 5: [x(1), x(5)] covers 1 − 2/32 = 0.9375.
    assert_eq!(median_interval(v(5), DECIDE_CONFIDENCE), Some((1.0, 5.0)));
    // n = 7: [x(2), x(6)] covers 1 − 2·8/128 = 0.875, so the range it is.
    assert_eq!(median_interval(v(7), DECIDE_CONFIDENCE), Some((1.0, 7.0)));
    // n = 8: [x(2), x(7)] covers 1 − 2·9/256 = 0.9297.
    assert_eq!(median_interval(v(8), DECIDE_CONFIDENCE), Some((2.0, 7.0)));
    // n = 12: [x(3), x(10)] covers 1 − 2·79/4096 = 0.9614; [x(4), x(9)] 0.854.
    assert_eq!(median_interval(v(12), DECIDE_CONFIDENCE), Some((3.0, 10.0)));
    // Unsorted input is sorted first.
    let shuffled = vec![5.0, 1.0, 4.0, 2.0, 3.0];
    assert_eq!(median_interval(shuffled, 0.9), Some((1.0, 5.0)));
}

#[test]
fn planted_ratios_are_decided_as_they_should_be() {
    let steady = [0.98, 1.01, 1.03, 0.99, 1.02];
    assert_eq!(decide(&steady, 0.10), Agreement::Inside);
    let drifted = [0.85, 0.87, 0.84, 0.88, 0.86];
    assert_eq!(decide(&drifted, 0.10), Agreement::Outside);
    // A drift whose rounds straddle the bound is not decided either way.
    let straddling = [0.85, 0.93, 0.84, 0.91, 0.86];
    assert_eq!(decide(&straddling, 0.10), Agreement::Undecided);
    // Three lucky rounds inside decide nothing: the old rule stopped here.
    assert_eq!(decide(&[0.95, 0.97, 1.0], 0.10), Agreement::Undecided);
    // One disturbed round among eight is trimmed by the interval.
    let one_outlier = [1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.6];
    assert_eq!(decide(&one_outlier, 0.10), Agreement::Inside);
}
